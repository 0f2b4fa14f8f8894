import Foundation

/// The store's data version read once for every request waiting on it, rather than once per
/// request: for a store where the read is a round trip to a database server (PostgreSQL), where
/// every cached read asks it and the round trips, not the answers, are what the server spends.
///
/// Still never stale. A request may only use a read that *started after it arrived*: such a
/// read sees every write acknowledged before the request was sent. So a request that arrives
/// while a read is under way waits for the next one, which starts as soon as the current one
/// ends and serves every request that arrived meanwhile. One read is under way at a time; under
/// load each costs one round trip for all the threads waiting, instead of one each.
public final class SharedVersionReads: @unchecked Sendable {
    private let read: @Sendable () -> Int64?
    private let condition = NSCondition()
    /// Reads started so far; the one under way, if any, is number `started`.
    private var started = 0
    /// The number of the last read that ended, and what it read (nil: it failed).
    private var finished = 0
    private var latest: Int64?
    private var isReading = false
    private var waitingCount = 0

    public init(read: @escaping @Sendable () -> Int64?) {
        self.read = read
    }

    /// Callers waiting for a read to end: for tests.
    public var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return waitingCount
    }

    /// The data version as of a moment after this call began.
    public func version() -> Int64? {
        condition.lock()
        defer { condition.unlock() }
        // Any read under way started before this call: only the next one will do.
        let needed = started + 1
        while finished < needed {
            if isReading {
                waitingCount += 1
                condition.wait()
                waitingCount -= 1
                continue
            }
            isReading = true
            started += 1
            let number = started
            condition.unlock()
            let value = read()
            condition.lock()
            latest = value
            finished = number
            isReading = false
            condition.broadcast()
        }
        return latest
    }
}
