import GRDB
import Synchronization

/// One read-only connection that only answers `PRAGMA data_version`. SQLite changes that number
/// on a connection whenever another connection commits: the store's writer, or any other
/// process on the file. It is one connection on purpose, since the number is per connection:
/// with several, each would report every commit again.
final class DataVersionWatcher: Sendable {
    private let path: String
    /// Opened on first use; nil again once closed, and `isClosed` then.
    private let state = Mutex<(connection: DatabaseQueue?, isClosed: Bool)>((nil, false))

    init(path: String) {
        self.path = path
    }

    func version() throws -> Int64 {
        try state.withLock { state in
            guard !state.isClosed else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
            }
            let connection = try state.connection ?? DatabaseQueue(path: path, configuration: SQLiteDiaryStore.configuration(readonly: true))
            state.connection = connection
            return try connection.inDatabase { db in
                try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
            }
        }
    }

    func close() throws {
        let connection = state.withLock { state in
            defer { state = (nil, true) }
            return state.connection
        }
        try connection?.close()
    }
}
