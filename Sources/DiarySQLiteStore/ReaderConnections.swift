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

    /// One read-only connection, and the last `PRAGMA data_version` it answered (see
    /// `DataVersionWatcher`). Used by one thread at a time: the one that took it.
    final class Reader {
        let queue: DatabaseQueue
        var lastSeenDataVersion: Int64?
        /// The deadline of the read under way, which SQLite checks as it runs.
        let deadline = ReadDeadline()

        init(queue: DatabaseQueue) {
            self.queue = queue
            let deadline = self.deadline
            queue.inDatabase { db in deadline.install(on: db) }
        }
    }

    private let path: String
    /// How long opening a connection waits for another process's lock (`SQLiteDiaryStore`'s `lockWait`).
    private let lockWait: TimeInterval
    private let condition = NSCondition()
    private var idle: [Reader] = []
    private var openCount = 0
    private var isClosed = false

    init(path: String, lockWait: TimeInterval) {
        self.path = path
        self.lockWait = lockWait
    }

    /// Runs `value` on a free connection; with a `budget`, a statement still running when it
    /// has passed is stopped (`SQLITE_INTERRUPT`). The connection is left out of any
    /// transaction `value` began, so that the next read on it starts clean.
    func read<T>(budget: Duration?, _ value: (Database) throws -> T) throws -> T {
        try withReader { reader in
            try reader.queue.inDatabase { db in
                guard let budget else { return try value(db) }
                do {
                    return try reader.deadline.within(budget) { try value(db) }
                } catch {
                    // Without a deadline now: the rollback cannot itself be stopped.
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
        }
    }

    /// Runs `body` with a connection of its own, waiting for one when all are busy.
    func withReader<T>(_ body: (Reader) throws -> T) throws -> T {
        let reader = try take()
        defer { putBack(reader) }
        return try body(reader)
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
            try connection.queue.close()
        }
    }

    private func take() throws -> Reader {
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
                    return Reader(queue: try DatabaseQueue(path: path, configuration: SQLiteDiaryStore.configuration(readonly: true, lockWait: lockWait)))
                } catch {
                    openCount -= 1
                    throw error
                }
            }
            condition.wait()
        }
    }

    private func putBack(_ connection: Reader) {
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
            try? connection.queue.close()
        }
    }
}
