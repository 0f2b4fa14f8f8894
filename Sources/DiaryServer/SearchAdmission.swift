import DiaryAPI
import DiaryPages
import HTTPCore

/// What an uncached search passes before it reads the store: the rate limit of its client
/// address, when it comes without a token (429), then a place at the `SearchGate` (503 when
/// none comes free in time). A search the response cache answers never gets here: it costs
/// nothing to serve again.
final class SearchAdmission: Sendable {
    let limits: SearchLimits
    let gate: SearchGate
    /// Nil when the rate limit is off.
    let rateLimiter: SearchRateLimiter?

    init(limits: SearchLimits) {
        self.limits = limits
        gate = SearchGate(capacity: limits.concurrency)
        rateLimiter = limits.ratePerSecond > 0 ? SearchRateLimiter(ratePerSecond: limits.ratePerSecond, burst: limits.burst) : nil
    }

    /// Runs `search` once it is admitted. `anonymous`: sent without a token, and so counted
    /// against `address`'s rate.
    func admit<T>(address: String?, anonymous: Bool, _ search: () throws(Problem) -> T) throws(Problem) -> T {
        if anonymous, let rateLimiter, !rateLimiter.admit(address) {
            throw .tooManySearches(ratePerSecond: limits.ratePerSecond)
        }
        guard gate.enter(waitingAtMost: limits.queueWait) else { throw .searchesBusy() }
        defer { gate.leave() }
        return try search()
    }
}

extension Problem {
    /// Past an address's search rate. `Retry-After: 1` goes with it (`Response(problem:)`):
    /// at one search a second or more, a token is back within a second.
    static func tooManySearches(ratePerSecond: Int) -> Problem {
        Problem(
            title: "Too Many Requests", status: 429,
            detail: "This address started more than \(ratePerSecond) searches a second without a token. Try again in a second, or send a token."
        )
    }

    /// Every place for a search stayed taken while this one waited.
    static func searchesBusy() -> Problem {
        Problem(title: "Service Unavailable", status: 503, detail: "The server is answering as many searches as it runs at once. Try again in a second.")
    }
}

extension SearchAdmission {
    /// Whether `request` is a search: a GET or HEAD of an entry list (`/api/entries`,
    /// `/api/diaries/{id}/entries`) or of the search page with a `q` that is not blank.
    static func isSearch(_ request: Request) -> Bool {
        guard request.method == .get || request.method == .head, let raw = request.rawQuery, namesQ(raw),
              let segments = request.pathSegments(), searchedPaths.contains(where: { $0.match(segments) != nil }),
              let items = request.queryItems() else { return false }
        return items.contains { $0.name == "q" && !$0.value.allSatisfy(\.isWhitespace) }
    }

    /// The lists a `q` searches, as the contract and the pages define their paths.
    static let searchedPaths = [ListEntries.path, ListDiaryEntries.path, SitePaths.Route.search]

    /// Whether the raw query has a parameter named `q` (`q=` at its start or after `&`), by
    /// bytes: every request is asked, and `Substring.contains("q=")`, a search by Characters,
    /// cost a cached read about 6,900 instructions (callgrind, `bench/profile list`).
    static func namesQ(_ raw: Substring) -> Bool {
        var atParameterStart = true
        var afterQ = false
        for byte in raw.utf8 {
            if afterQ && byte == UInt8(ascii: "=") { return true }
            afterQ = atParameterStart && byte == UInt8(ascii: "q")
            atParameterStart = byte == UInt8(ascii: "&")
        }
        return false
    }
}
