import GRDB
import Synchronization

/// Tells when anything committed to the file. SQLite changes `PRAGMA data_version` on a
/// connection whenever another connection commits: the store's writer, or any other process on
/// the file. The store's read connections never commit, so any of them can be asked, and asking
/// one that is idle means the worker threads never wait for each other here (one connection of
/// its own behind a lock was 6 % of a cached read, most of it waiting).
///
/// Each connection's number moves on its own, so what `version()` answers is a generation,
/// bumped whenever the connection asked sees its number move: one commit may bump it once per
/// connection, which costs only an extra rebuild. It is never behind a commit that finished
/// before the call: the connection asked either sees that commit now, or saw it at an earlier
/// call that came after the commit and bumped the generation then (a connection's first answer
/// counts as a change).
final class DataVersionWatcher: Sendable {
    private let readers: ReaderConnections
    private let generation = Atomic<Int64>(0)

    init(readers: ReaderConnections) {
        self.readers = readers
    }

    func version() throws -> Int64 {
        try readers.withReader { reader in
            let seen = try reader.queue.inDatabase { db in
                try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
            }
            if seen != reader.lastSeenDataVersion {
                reader.lastSeenDataVersion = seen
                generation.add(1, ordering: .sequentiallyConsistent)
            }
        }
        return generation.load(ordering: .sequentiallyConsistent)
    }
}
