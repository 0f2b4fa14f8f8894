import DiaryAPI
@testable import DiaryPostgresStore
import DiaryStore
import Foundation
import Glibc
import PostgresNIO
import StoreTestSupport
import Testing

/// The store's deadline (`timeout`): a server that does not answer costs a call that long, not
/// a hang. Freezing or stopping a real server belongs to `scripts/stress` (pg-frozen,
/// pg-restart), which starts clusters of its own; here the silent server is a socket that
/// accepts connections and never says a word, and the slow one a statement that sleeps.
struct PostgresDeadlineTests {
    /// A server that lets clients connect (the kernel completes the handshake from the listen
    /// backlog) but never answers the login, as a frozen PostgreSQL does: opening the store
    /// fails as `.unavailable` within about the timeout.
    @Test func aServerThatNeverAnswersTheLoginIsUnavailableWithinTheTimeout() throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let url = try PostgresURL("postgres://diary@127.0.0.1:\(silent.port)/silent")
        let began = Date()
        let error = expectStoreError(.unavailable) { try PostgresDiaryStore(url: url, timeout: 0.5) }
        let took = Date().timeIntervalSince(began)
        #expect(error != nil)
        #expect(took < 5, "took \(took) s")
    }

    /// After a login went unanswered, the pool takes the server to be silent: the next call
    /// fails at once instead of waiting the timeout again (a request makes several).
    @Test func afterALoginTimedOutCallsFailAtOnce() throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let url = try PostgresURL("postgres://diary@127.0.0.1:\(silent.port)/silent")
        let pool = ConnectionPool(
            configuration: try PostgresDiaryStore.configuration(url, timeout: 0.5), maximumCount: 2, timeout: 0.5,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: PostgresDiaryStore.logger
        )
        defer { pool.close() }
        #expect(throws: (any Error).self) { try pool.withConnection { _, _ in } }
        let began = Date()
        let error = #expect(throws: ConnectionPool.PoolError.self) { try pool.withConnection { _, _ in } }
        #expect(Date().timeIntervalSince(began) < 0.4)
        #expect(error.map { "\($0)" }?.contains("unanswered") == true, "\(String(describing: error))")
    }

    /// A statement that runs long on a server that answers is stopped by the server itself
    /// (the session's statement_timeout, 90 % of the timeout) before the store's deadline:
    /// `.timedOut`, its connection kept, and the next, unrelated call is answered. Before, the
    /// store's deadline closed the connection and took the server for frozen: the next call
    /// failed at once (a slow search answered the next one 503 in 2 ms).
    @Test(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
    func aSlowStatementIsStoppedByTheServerAndTheNextCallIsAnswered() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, poolSize: 1, timeout: 0.5)
            defer { store.close() }
            let backend = try store.statement(.operation("pid")) { session in try session.one((Int32).self, "SELECT pg_backend_pid()") }
            let began = Date()
            let error = expectStoreError(.timedOut) {
                try store.statement(.operation("sleeping")) { session in try session.execute("SELECT pg_sleep(5)") }
            }
            let took = Date().timeIntervalSince(began)
            #expect(error?.detail.contains("57014") == true, "\(String(describing: error))")
            #expect(took < 4, "took \(took) s")
            #expect(try store.dataVersion() >= 0)
            #expect(try store.statement(.operation("pid")) { session in try session.one((Int32).self, "SELECT pg_backend_pid()") } == backend)
        }
    }

    /// A read past the query timeout is stopped by the server (`statement_timeout`): `.timedOut`,
    /// not `.unavailable`; its connection, rolled back, serves the next call (the same backend:
    /// the pool holds one), and writes are not bound by it.
    @Test(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
    func aReadPastTheQueryTimeoutIsStoppedAndItsConnectionServesTheNext() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, poolSize: 1, timeout: 5, queryTimeout: .milliseconds(100))
            defer { store.close() }
            let backend = try store.statement(.operation("pid")) { session in try session.one((Int32).self, "SELECT pg_backend_pid()") }
            let began = Date()
            let error = expectStoreError(.timedOut) {
                try store.read(.operation("sleeping")) { session in try session.execute("SELECT pg_sleep(3)") }
            }
            #expect(error?.detail.contains("57014") == true, "\(String(describing: error))")
            #expect(Date().timeIntervalSince(began) < 2.5)
            for _ in 0..<3 {
                #expect(try store.read(.operation("pid")) { session in try session.one((Int32).self, "SELECT pg_backend_pid()") } == backend)
            }
            // Writes and unbounded reads run past it.
            _ = try store.write(.operation("slow write")) { session in try session.execute("SELECT pg_sleep(0.3)") }
            _ = try store.read(.operation("slow check"), bounded: false) { session in try session.execute("SELECT pg_sleep(0.3)") }
            _ = try store.createUser(name: "alice", tokenHash: newTokenHash())
        }
    }

    /// A write whose statement runs past the timeout keeps nothing, and the store goes on.
    @Test(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
    func aWritePastTheTimeoutKeepsNothing() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, poolSize: 1, timeout: 0.5)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let version = try store.dataVersion()
            // Stopped by the server (statement_timeout), and rolled back.
            let failure = expectStoreError(.timedOut) {
                try store.write(.operation("slow write")) { session in
                    try session.execute("INSERT INTO entries (diary_id, title, body, created, updated) VALUES (1, 'slow', '', date_trunc('second', now()), date_trunc('second', now()))")
                    try session.execute("SELECT pg_sleep(5)")
                }
            }
            #expect(failure?.detail.contains("57014") == true, "\(String(describing: failure))")
            try waitUntilServing(store)
            // The server rolls the transaction back once it notices the closed connection.
            let deadline = Date(timeIntervalSinceNow: 10)
            while try PostgresDiaryStore.connectionCount(to: url.database, on: #require(testServer)) > 1 {
                try #require(Date() < deadline, "the server ended the abandoned connection within 10 s")
                Thread.sleep(forTimeInterval: 0.01)
            }
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 0)
            #expect(try store.dataVersion() == version)
            #expect(try store.createEntry(userID: alice.id, diaryID: nil, title: "after", body: "").title == "after")
        }
    }

    /// When every connection stays busy past the timeout, a caller waiting for one fails as
    /// `.unavailable` then, rather than after the pool's old 30 s.
    @Test(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
    func waitingForABusyPoolEndsAtTheTimeout() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, poolSize: 1, timeout: 1)
            defer { store.close() }
            let holding = DispatchSemaphore(value: 0)
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                // Holds the only connection for about 2.1 s, each statement well within the timeout.
                _ = try? store.read(.operation("holding")) { session in
                    holding.signal()
                    for _ in 0..<3 { try session.execute("SELECT pg_sleep(0.7)") }
                }
                done.signal()
            }
            holding.wait()
            let began = Date()
            let error = expectStoreError(.unavailable) { try store.dataVersion() }
            let took = Date().timeIntervalSince(began)
            #expect(error?.detail.contains("stayed busy") == true, "\(String(describing: error))")
            #expect(took < 2.1, "took \(took) s")
            done.wait()
            #expect(try store.dataVersion() >= 0)
        }
    }
}

/// Waits until the store answers again (a login got in after a statement went unanswered).
private func waitUntilServing(_ store: PostgresDiaryStore) throws {
    let deadline = Date(timeIntervalSinceNow: 10)
    while (try? store.dataVersion()) == nil {
        try #require(Date() < deadline, "the store answered again within 10 s")
        Thread.sleep(forTimeInterval: 0.01)
    }
}

/// A loopback TCP socket that listens and never accepts: connections complete in the backlog
/// and then hear nothing.
private struct SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        descriptor = listener
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        Glibc.close(descriptor)
    }
}
