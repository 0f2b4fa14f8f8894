import GRDB
import Synchronization

/// Tells when anything committed to the file, through read-only connections that only answer
/// `PRAGMA data_version`. SQLite changes that number on a connection whenever another connection
/// commits: the store's writer, or any other process on the file.
///
/// There is one connection per thread asking at once, kept in a free list, so that the server's
/// worker threads never wait for each other here (one shared connection behind a lock was 6 % of
/// a cached read, most of it waiting). Each connection's number moves on its own, so what
/// `version()` answers is a generation, bumped whenever any of them sees its number move:
/// one commit may bump it once per connection, which costs only an extra rebuild.
///
/// Never behind a commit that finished before `version()` was called: the connection asked
/// either sees that commit now, or saw it at an earlier call that came after the commit and
/// bumped the generation then (a connection's first answer counts as a change).
final class DataVersionWatcher: Sendable {
    private final class Watcher: @unchecked Sendable {
        let connection: DatabaseQueue
        /// Only read and written by the thread that took the watcher from the free list.
        var lastSeen: Int64?

        init(connection: DatabaseQueue) {
            self.connection = connection
        }
    }

    private let path: String
    /// The idle watchers; nil once closed.
    private let idle = Mutex<[Watcher]?>([])
    private let generation = Atomic<Int64>(0)

    init(path: String) {
        self.path = path
    }

    func version() throws -> Int64 {
        let watcher = try take()
        defer { putBack(watcher) }
        let seen = try watcher.connection.inDatabase { db in
            try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        }
        if seen != watcher.lastSeen {
            watcher.lastSeen = seen
            generation.add(1, ordering: .sequentiallyConsistent)
        }
        return generation.load(ordering: .sequentiallyConsistent)
    }

    func close() throws {
        let watchers = idle.withLock { idle in
            defer { idle = nil }
            return idle ?? []
        }
        for watcher in watchers {
            try watcher.connection.close()
        }
    }

    private func take() throws -> Watcher {
        let (closed, reused) = idle.withLock { idle in (idle == nil, idle?.popLast()) }
        if closed {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
        }
        if let reused { return reused }
        return Watcher(connection: try DatabaseQueue(path: path, configuration: SQLiteDiaryStore.configuration(readonly: true)))
    }

    private func putBack(_ watcher: Watcher) {
        let kept = idle.withLock { idle in
            idle?.append(watcher)
            return idle != nil
        }
        if !kept {
            try? watcher.connection.close()
        }
    }
}
