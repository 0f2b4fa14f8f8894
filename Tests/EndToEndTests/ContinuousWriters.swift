import DiaryAPI
import Foundation
import Testing

/// Threads posting entries to a server as fast as it answers, until stopped: what each post
/// got back, when, and how long it waited.
final class ContinuousWriters: @unchecked Sendable {
    struct Acknowledged {
        var id: Int64
        var at: ContinuousClock.Instant
    }

    private let lock = NSLock()
    private var stopped = false
    private var acknowledged: [Acknowledged] = []
    private var failures: [String] = []
    /// Each post's wait: (when it was sent, how long it took).
    private var waits: [(sent: ContinuousClock.Instant, took: Duration)] = []
    private var running = 0

    /// Starts `count` threads posting to `server` as the owner of `token`.
    init(count: Int, server: ServerProcess, token: String) {
        running = count
        for number in 1...count {
            Thread { [self] in post(number: number, server: server, token: token) }.start()
        }
    }

    private func post(number: Int, server: ServerProcess, token: String) {
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        var sequence = 0
        while !lock.withLock({ stopped }) {
            sequence += 1
            let sent = ContinuousClock.now
            do {
                let body = #"{"title":"writer \#(number) post \#(sequence)","body":"written while backups are taken"}"#
                let response = try server.raw("POST", "/api/entries", headers: headers, body: body)
                let took = ContinuousClock.now - sent
                guard response.status == 201 else {
                    lock.withLock { failures.append("\(response.status): \(response.text)") }
                    continue
                }
                let entry = try JSONDecoder.diary.decode(Entry.self, from: Data(response.body))
                lock.withLock {
                    acknowledged.append(Acknowledged(id: entry.id, at: ContinuousClock.now))
                    waits.append((sent, took))
                }
            } catch {
                lock.withLock { failures.append("\(error)") }
            }
        }
        lock.withLock { running -= 1 }
    }

    /// The ids acknowledged (answered 201) before `instant`.
    func acknowledgedIDs(before instant: ContinuousClock.Instant) -> Set<Int64> {
        lock.withLock { Set(acknowledged.filter { $0.at < instant }.map(\.id)) }
    }

    var acknowledgedCount: Int { lock.withLock { acknowledged.count } }

    /// Polls until `count` more posts than now were acknowledged (30 s at most).
    func waitForMorePosts(_ count: Int) {
        let target = acknowledgedCount + count
        let deadline = ContinuousClock.now + .seconds(30)
        while acknowledgedCount < target && ContinuousClock.now < deadline { usleep(1_000) }
        #expect(acknowledgedCount >= target, "writers acknowledged \(acknowledgedCount) posts, waited for \(target)")
    }

    /// The longest wait of a post sent between `start` and `end`.
    func longestWait(sentFrom start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Duration {
        lock.withLock { waits.filter { $0.sent >= start && $0.sent <= end }.map(\.took).max() ?? .zero }
    }

    /// Stops the threads, waits for them, and returns every failed post.
    func stop() -> [String] {
        lock.withLock { stopped = true }
        let deadline = ContinuousClock.now + .seconds(30)
        while lock.withLock({ running }) > 0 && ContinuousClock.now < deadline { usleep(1_000) }
        return lock.withLock { failures }
    }
}
