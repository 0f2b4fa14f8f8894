import Foundation

/// The store's data version read once for many requests, rather than once per request: for a
/// store where the read is a round trip to a database server (PostgreSQL), where every cached
/// read asks it and the round trips, not the answers, are what the server spends.
///
/// Still never stale. A read that *began* at time t sees every write that returned before t,
/// and, since every write waits the store's `dataVersionLease` after its commit before it
/// returns, every write that returned before t + lease. So a request arriving at time a may
/// use a read that began at a - lease or later: the last one, if it is that recent, at once;
/// else the one under way, if that is; else the next, which starts as soon as the one under way
/// ends and serves every request waiting. One read is under way at a time. With a lease of
/// 1 ms, a busy server asks at most about a thousand times a second, however many it answers;
/// with none, each read serves the requests that arrived while the one before it ran.
public final class SharedVersionReads: @unchecked Sendable {
    private let read: @Sendable () -> Int64?
    private let lease: Duration
    private let condition = NSCondition()
    /// When the read under way began, if one is.
    private var readingSince: ContinuousClock.Instant?
    /// When the last read to end began, and what it read (nil: it failed).
    private var latestSince: ContinuousClock.Instant?
    private var latest: Int64?
    private var waitingCount = 0

    /// - Parameter lease: the store's `dataVersionLease`.
    public init(lease: Duration = .zero, read: @escaping @Sendable () -> Int64?) {
        self.lease = lease
        self.read = read
    }

    /// Callers waiting for a read to end: for tests.
    public var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return waitingCount
    }

    /// The data version as of a moment that every write returned before this call counts in.
    public func version() -> Int64? {
        let oldestUsable = ContinuousClock.now - lease
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let latestSince, latestSince >= oldestUsable {
                return latest
            }
            if readingSince != nil {
                // Either it began recently enough and its answer will do, or the next one is needed.
                waitingCount += 1
                condition.wait()
                waitingCount -= 1
                continue
            }
            let since = ContinuousClock.now
            readingSince = since
            condition.unlock()
            let value = read()
            condition.lock()
            latest = value
            latestSince = since
            readingSince = nil
            condition.broadcast()
        }
    }
}
