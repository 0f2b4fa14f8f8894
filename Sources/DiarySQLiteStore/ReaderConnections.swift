import Foundation
import GRDB

/// The connections reads run on: read-only connections to the file, one read at a time each,
/// kept in a free list between reads. It does what `DatabasePool`'s reader pool does without
/// its dispatch-queue locks and its schema check before every read, which were 44k of the 97k
/// instructions of reading one entry (callgrind).
///
/// At most `maximumCount` are open; a read that finds them all busy waits for one. Each holds
/// a page cache of its own, so without a bound the server's threads that wait on writes (and
/// read the caller's token first) opened one each: peak RSS went past 100 MiB with 100,000 entries.
final class ReaderConnections: @unchecked Sendable {
    static let maximumCount = 8

    private let path: String
    private let condition = NSCondition()
    private var idle: [DatabaseQueue] = []
    private var openCount = 0
    private var isClosed = false

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
        condition.lock()
        isClosed = true
        let connections = idle
        idle = []
        openCount -= connections.count
        condition.broadcast()
        condition.unlock()
        for connection in connections {
            try connection.close()
        }
    }

    private func take() throws -> DatabaseQueue {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isClosed {
                // What GRDB throws for a closed pool, which the store reports as "the store is closed".
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")
            }
            if let connection = idle.popLast() {
                return connection
            }
            if openCount < Self.maximumCount {
                openCount += 1
                do {
                    return try DatabaseQueue(path: path, configuration: SQLiteDiaryStore.configuration(readonly: true))
                } catch {
                    openCount -= 1
                    throw error
                }
            }
            condition.wait()
        }
    }

    private func putBack(_ connection: DatabaseQueue) {
        condition.lock()
        let closed = isClosed
        if closed {
            openCount -= 1
        } else {
            idle.append(connection)
            condition.signal()
        }
        condition.unlock()
        if closed {
            try? connection.close()
        }
    }
}
