import ArgumentParser
import DiaryServer
import Foundation

/// `serve --query-timeout 500ms --search-concurrency 1 --search-rate 10 --search-burst 20`:
/// what keeps one request, or a burst of searches, from holding the others hostage.
struct RequestBudgetOptions: ParsableArguments {
    @Option(help: """
        How long one read of the database may run (ms, s: 500ms, 2s); a read past it is stopped and answered 503 \
        with Retry-After. 0 turns the limit off.
        """)
    var queryTimeout = "500ms"

    @Option(help: "Searches the response cache cannot answer that run at once (default: half the cores, at least 1).")
    var searchConcurrency: Int?

    @Option(help: "How long a search waits for its turn before it is answered 503 with Retry-After (ms, s).")
    var searchQueueWait = "500ms"

    @Option(help: "Searches a second one client address may start without a token, after its burst (10 or 10/s); 0 turns the limit off.")
    var searchRate = "10"

    @Option(help: "Searches one address may start at once without a token before --search-rate applies.")
    var searchBurst = 20

    /// `--query-timeout` as a duration; nil when it is 0 (off).
    var queryBudget: Duration? {
        guard let seconds = DurationText.seconds(queryTimeout), seconds > 0 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// `--search-rate` per second, or nil when it is not a whole number (with an optional "/s").
    var ratePerSecond: Int? {
        Int(searchRate.hasSuffix("/s") ? String(searchRate.dropLast(2)) : searchRate).flatMap { $0 >= 0 ? $0 : nil }
    }

    func validate() throws {
        guard let timeout = DurationText.seconds(queryTimeout), timeout <= 3600 else {
            throw ValidationError("--query-timeout must be a duration of at most 1h, such as 500ms or 2s; 0 turns it off.")
        }
        if let searchConcurrency, !(1...256).contains(searchConcurrency) {
            throw ValidationError("--search-concurrency must be between 1 and 256.")
        }
        guard let wait = DurationText.seconds(searchQueueWait), wait <= 60 else {
            throw ValidationError("--search-queue-wait must be a duration of at most 60s, such as 500ms.")
        }
        guard ratePerSecond != nil else { throw ValidationError("--search-rate must be a whole number of searches a second (10 or 10/s); 0 turns it off.") }
        guard searchBurst >= 1 else { throw ValidationError("--search-burst must be at least 1.") }
    }

    /// The limits for a server whose worker threads run on `threads` cores.
    func searchLimits(threads: Int) -> SearchLimits {
        SearchLimits(
            concurrency: searchConcurrency ?? SearchLimits.defaultConcurrency(threads: threads),
            queueWait: .milliseconds(Int64(((DurationText.seconds(searchQueueWait) ?? 0.5) * 1000).rounded())),
            ratePerSecond: ratePerSecond ?? 0, burst: searchBurst
        )
    }
}
