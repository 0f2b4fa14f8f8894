import Foundation
import PostgresNIO

/// Up to `maximumCount` connections to one database, handed to one caller at a time, for
/// callers that block: the server's worker threads and the tests' threads, never an event loop.
///
/// The `DiaryStore` protocol is synchronous, so every call waits on its queries' futures
/// (`EventLoopFuture.wait()`, which refuses to run on an event-loop thread). The futures are
/// completed by SwiftNIO's event loops, which never wait on anything here, so a caller always
/// gets its answer even when every Swift concurrency thread is blocked in a store call (as
/// parallel tests do): no Swift task is involved, unlike a bridge through `PostgresClient.run()`.
///
/// Connections open on first need and stay open; one that failed below SQL (closed by the
/// server, reset) is dropped and the next caller opens a new one.
final class ConnectionPool: @unchecked Sendable {
    /// How long a caller waits for a free connection when all are busy.
    static let checkOutTimeout: TimeInterval = 30

    let configuration: PostgresConnection.Configuration
    let maximumCount: Int
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger

    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var openCount = 0
    private var nextID = 0
    private var isClosed = false

    init(configuration: PostgresConnection.Configuration, maximumCount: Int, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        self.configuration = configuration
        self.maximumCount = max(maximumCount, 1)
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// Runs `body` with a connection of its own, and whether it was opened for this call
    /// (rather than reused, and so perhaps closed by the server since). A connection whose
    /// channel closed during `body` is not put back.
    func withConnection<T>(_ body: (PostgresConnection, _ isNew: Bool) throws -> T) throws -> T {
        let (connection, isNew) = try checkOut()
        do {
            let result = try body(connection, isNew)
            checkIn(connection)
            return result
        } catch {
            checkIn(connection)
            throw error
        }
    }

    /// Closes every idle connection now, and every busy one when it comes back. Later calls throw.
    func close() {
        condition.lock()
        isClosed = true
        let closing = idle
        idle.removeAll()
        openCount -= closing.count
        condition.broadcast()
        condition.unlock()
        for connection in closing {
            try? connection.close().wait()
        }
    }

    private func checkOut() throws -> (PostgresConnection, isNew: Bool) {
        let deadline = Date(timeIntervalSinceNow: Self.checkOutTimeout)
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw PoolError.closed
            }
            if let connection = idle.popLast() {
                if connection.isClosed {
                    openCount -= 1
                    continue
                }
                condition.unlock()
                return (connection, false)
            }
            if openCount < maximumCount {
                openCount += 1
                nextID += 1
                let id = nextID
                condition.unlock()
                do {
                    let connection = try PostgresConnection.connect(
                        on: eventLoopGroup.next(), configuration: configuration, id: id, logger: logger
                    ).wait()
                    return (connection, true)
                } catch {
                    condition.lock()
                    openCount -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw PoolError.timedOut(maximumCount)
            }
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        condition.lock()
        if connection.isClosed || isClosed {
            openCount -= 1
            condition.signal()
            condition.unlock()
            if !connection.isClosed { try? connection.close().wait() }
            return
        }
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    enum PoolError: Error, CustomStringConvertible {
        case closed
        case timedOut(Int)

        var description: String {
            switch self {
            case .closed: "the store is closed"
            case .timedOut(let count): "all \(count) connections stayed busy for \(Int(ConnectionPool.checkOutTimeout)) s"
            }
        }
    }
}
