/// What a store tells the people who run it, apart from the data: whether it can be written
/// now (the readiness answer a load balancer asks) and how large and busy it is (metrics).
/// Kept out of `DiaryStore`, whose contract is the data's, so that a wrapper of a store for
/// tests need not fill it.
public protocol OperatedStore: Sendable {
    /// Returns when a write could begin now; throws `.unavailable`, with the reason in its
    /// detail, when it could not within `bound`: a read-only file or folder, another
    /// connection holding the write lock past `bound`, or (PostgreSQL) a server that is
    /// unreachable or read-only (a standby). Writes nothing: it never empties a cache.
    func checkWritable(within bound: Duration) throws(StoreError)

    /// Counts read when metrics are scraped. A count over a table is a scan of its smallest
    /// index: run on the metrics listener's thread, never on a public request's.
    func statistics() throws(StoreError) -> StoreStatistics
}

/// The sizes and queues of a store at one moment; nil where the engine has no such thing.
public struct StoreStatistics: Sendable, Equatable {
    public var users: Int
    public var entries: Int
    /// SQLite: writes queued for the next group commit.
    public var writesWaiting: Int?
    /// SQLite: group-commit transactions since the start.
    public var groupCommits: Int?
    /// SQLite: writes committed in those transactions; over `groupCommits`, the mean group size.
    public var groupedWrites: Int?
    /// PostgreSQL: connections handed out now.
    public var connectionsInUse: Int?
    /// PostgreSQL: connections open now.
    public var connectionsOpen: Int?
    /// PostgreSQL: check-outs that found every connection taken and waited, since the start.
    public var connectionWaits: Int?

    public init(users: Int, entries: Int) {
        self.users = users
        self.entries = entries
    }
}
