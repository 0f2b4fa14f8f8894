import GRDB
import Synchronization

/// The connections reads run on: read-only connections to the file, one read at a time each,
/// kept in a free list between reads. It does what `DatabasePool`'s reader pool does without
/// its dispatch-queue locks and its schema check before every read, which were 44k of the 97k
/// instructions of reading one entry (callgrind). There are never more connections than reads
/// that ran at once: the server's worker threads.
final class ReaderConnections: Sendable {
    private let path: String
    /// The idle connections; nil once closed.
    private let idle = Mutex<[DatabaseQueue]?>([])

    init(path: String) {
        self.path = path
    }

    func read<T>(_ value: (Database) throws -> T) throws -> T {
        let connection = try take()
        defer { putBack(connection) }
        return try connection.inDatabase(value)
    }

    /// Closes the idle connections; the busy ones close when their read ends. Reads then throw.
    func close() throws {
        let connections = idle.withLock { idle in
            defer { idle = nil }
            return idle ?? []
        }
        for connection in connections {
            try connection.close()
        }
    }

    private func take() throws -> DatabaseQueue {
        let (closed, reused) = idle.withLock { idle in (idle == nil, idle?.popLast()) }
        if closed {
            // What GRDB throws for a closed pool, which the store reports as "the store is closed".
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
        }
        return try reused ?? DatabaseQueue(path: path, configuration: SQLiteDiaryStore.configuration(readonly: true))
    }

    private func putBack(_ connection: DatabaseQueue) {
        let kept = idle.withLock { idle in
            idle?.append(connection)
            return idle != nil
        }
        if !kept {
            try? connection.close()
        }
    }
}
