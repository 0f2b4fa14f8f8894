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
///
/// No wait here is longer than `timeout`: for a free connection, for a new one (the
/// configuration's `connectTimeout`, which postgres-nio applies up to the end of the login),
/// and for each statement's answer (`SQLSession`). So a server that is down, frozen or out of
/// connection slots makes a call fail within about that long, never hang.
///
/// Once the server has let a statement or a login go unanswered that long, it is taken to be
/// silent (frozen, or cut off): every call fails at once, instead of each waiting `timeout`
/// on its own (a request reads the store two or three times, and the workers' queues wait
/// behind them), while one login at a time, begun by a call, probes the server. The first
/// that succeeds ends it. A statement that is only slow costs the same: a login that answers.
final class ConnectionPool: @unchecked Sendable {
    let configuration: PostgresConnection.Configuration
    let maximumCount: Int
    /// The longest a caller waits for a free connection, and for each statement's answer.
    let timeout: TimeInterval
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger

    private let condition = NSCondition()
    private var idle: [PooledConnection] = []
    private var openCount = 0
    private var nextID = 0
    private var isClosed = false
    /// Whether the server let a wait pass `timeout` unanswered, and no login has succeeded since.
    private var isSilent = false
    /// Whether a login probing a silent server is under way.
    private var isProbing = false
    /// Check-outs that found every connection taken and had to wait, since the start (for metrics).
    private var waitCount = 0

    /// Connections handed out now, connections open, and waits so far: for metrics.
    var usage: (inUse: Int, open: Int, waits: Int) {
        condition.withLock { (openCount - idle.count, openCount, waitCount) }
    }

    init(
        configuration: PostgresConnection.Configuration, maximumCount: Int, timeout: TimeInterval,
        eventLoopGroup: any EventLoopGroup, logger: Logger
    ) {
        self.configuration = configuration
        self.maximumCount = max(maximumCount, 1)
        self.timeout = timeout
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// Runs `body` with a connection of its own, and whether it was opened for this call
    /// (rather than reused, and so perhaps closed by the server since). A connection whose
    /// channel closed during `body` is not put back.
    func withConnection<T>(_ body: (PooledConnection, _ isNew: Bool) throws -> T) throws -> T {
        let (connection, isNew) = try checkOut()
        do {
            let result = try body(connection, isNew)
            checkIn(connection)
            return result
        } catch {
            checkIn(connection)
            if error is SQLSession.NoAnswer { markSilent() }
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
        for pooled in closing {
            SQLSession.close(pooled.connection, timeout: timeout)
        }
    }

    private func checkOut() throws -> (PooledConnection, isNew: Bool) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var waited = false
        condition.lock()
        while true {
            if isClosed {
                condition.unlock()
                throw PoolError.closed
            }
            if isSilent {
                let probe = !isProbing
                isProbing = true
                condition.unlock()
                if probe { startProbe() }
                throw PoolError.silent(seconds: timeout)
            }
            if let connection = idle.popLast() {
                if connection.connection.isClosed {
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
                    // postgres-nio's connectTimeout (the same `timeout`) ends a login that takes
                    // longer; this wait, a second longer, holds even if its future were lost.
                    let eventLoop = eventLoopGroup.next()
                    let connecting = PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
                    let connection = try SQLSession.waitAtMost(timeout + 1, for: connecting, on: eventLoop) {
                        connecting.whenSuccess { late in let _: EventLoopFuture<Void> = late.close() }
                    }
                    return (PooledConnection(connection), true)
                } catch {
                    condition.lock()
                    openCount -= 1
                    condition.signal()
                    condition.unlock()
                    if Self.isLoginTimeout(error) { markSilent() }
                    throw error
                }
            }
            if !waited {
                waited = true
                waitCount += 1
            }
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw PoolError.timedOut(maximumCount, seconds: timeout)
            }
        }
    }

    private func checkIn(_ pooled: PooledConnection) {
        let connection = pooled.connection
        condition.lock()
        if connection.isClosed || isClosed {
            openCount -= 1
            condition.signal()
            condition.unlock()
            if !connection.isClosed { SQLSession.close(connection, timeout: timeout) }
            return
        }
        idle.append(pooled)
        condition.signal()
        condition.unlock()
    }

    /// The server left a wait unanswered for `timeout`: calls fail at once from now on, and
    /// those waiting for a connection stop waiting, until a probe logs in.
    private func markSilent() {
        condition.lock()
        isSilent = true
        condition.broadcast()
        condition.unlock()
    }

    /// One login, on an event loop, not waited for by any caller: when it succeeds the server
    /// answers again and calls go through; when it fails the next call starts another. A
    /// second after the timeout the probe counts as failed even if its future never completes
    /// (as a query's once did), so that one lost future cannot keep the pool silent for good.
    private func startProbe() {
        let eventLoop = eventLoopGroup.next()
        let connecting = PostgresConnection.connect(on: eventLoop, configuration: configuration, id: 0, logger: logger)
        let givingUp = eventLoop.scheduleTask(in: .milliseconds(Int64((timeout + 1) * 1000))) { [self] in
            endProbe(answered: false)
        }
        connecting.whenComplete { [self] result in
            givingUp.cancel()
            if case .success(let connection) = result {
                let _: EventLoopFuture<Void> = connection.close()
            }
            endProbe(answered: (try? result.get()) != nil)
        }
    }

    /// A probe ended; one that logged in (even after it was given up) ends the silence.
    private func endProbe(answered: Bool) {
        condition.lock()
        isProbing = false
        if answered { isSilent = false }
        condition.unlock()
    }

    /// A login that ran out of time (postgres-nio's connectTimeout, or this pool's own wait).
    static func isLoginTimeout(_ error: any Error) -> Bool {
        if error is SQLSession.NoAnswer { return true }
        guard let error = error as? PSQLError, error.code == .connectionError, let underlying = error.underlying as? ChannelError else {
            return false
        }
        if case .connectTimeout = underlying { return true }
        return false
    }

    enum PoolError: Error, CustomStringConvertible {
        case closed
        case timedOut(Int, seconds: TimeInterval)
        case silent(seconds: TimeInterval)

        var description: String {
            switch self {
            case .closed: "the store is closed"
            case .timedOut(let count, let seconds): "all \(count) connections stayed busy for \(seconds) s"
            case .silent(let seconds): "the server left a statement or a login unanswered for \(seconds) s, and has not let a login in since"
            }
        }
    }
}

/// A connection of the pool, with the statements prepared on it: used by one caller at a time.
final class PooledConnection: @unchecked Sendable {
    let connection: PostgresConnection
    let prepared = PreparedStatements()

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }
}
