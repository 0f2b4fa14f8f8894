import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO
import StoreKernel

/// Making and removing whole databases on a server: for tests (a fresh database each) and for
/// setting up a server. The URL names the database to connect to while doing it (`postgres`).
extension PostgresDiaryStore {
    /// Creates an empty UTF-8 database with the C.UTF-8 locale (what search's case folding
    /// assumes), owned by the URL's user.
    public static func createDatabase(named name: String, on serverURL: PostgresURL) throws(StoreError) {
        try withAdminConnection(serverURL, subject: "new database \(name)") { session in
            try session.execute(
                "CREATE DATABASE \(quotedIdentifier(name)) TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'"
            )
        }
    }

    /// Drops the database, closing any connection still open to it.
    public static func dropDatabase(named name: String, on serverURL: PostgresURL) throws(StoreError) {
        try withAdminConnection(serverURL, subject: "database \(name)") { session in
            try session.execute("DROP DATABASE IF EXISTS \(quotedIdentifier(name)) WITH (FORCE)")
        }
    }

    /// Creates the database `name` as a copy of `original` as it is now: for tests that start
    /// two worlds from one database. PostgreSQL copies only a database no one is connected to,
    /// so every connection to `original` is ended first (a store's pool replaces them on its
    /// next call); a call running on one meanwhile would fail.
    public static func copyDatabase(named original: String, to name: String, on serverURL: PostgresURL) throws(StoreError) {
        try withAdminConnection(serverURL, subject: "new database \(name), a copy of \(original)") { session in
            try session.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [original])
            // Waits (up to 5 s) for the ended connections' server processes to exit.
            try session.execute("CREATE DATABASE \(quotedIdentifier(name)) TEMPLATE \(quotedIdentifier(original))")
        }
    }

    /// A name as an SQL identifier, quoted: whatever it holds, it stays one name.
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func withAdminConnection(
        _ url: PostgresURL, subject: String, timeout: TimeInterval = defaultTimeout, _ body: (SQLSession) throws -> Void
    ) throws(StoreError) {
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration(url), id: 0, logger: logger
            ).wait()
            defer { SQLSession.close(connection, timeout: defaultTimeout) }
            try body(SQLSession(PooledConnection(connection), logger: logger, timeout: timeout))
        } catch {
            throw StoreError(error, subject: .operation(subject))
        }
    }
}

// MARK: - Diagnostics

extension PostgresDiaryStore {
    /// The plan PostgreSQL makes for the page query of `query` (the walk newest first that many
    /// matches make it when `walking`), after `SET LOCAL` of each of `settings` (such as
    /// `enable_seqscan = off`): for tests.
    func queryPlan(for query: EntryQuery, walking: Bool = false, settings: [String] = []) throws(StoreError) -> String {
        try read(.operation("query plan")) { session in
            try Self.withoutParallelWorkers(session)
            for setting in settings { try session.execute("SET LOCAL \(setting)") }
            let sql = try Self.chunkPlan(for: query, session).listSQL(query)
            let explain: SQLFragment = "EXPLAIN \(walking ? sql.reading(totalIsEstimate: true).page : sql.page)"
            return try session.query(explain.postgres)
                .map { try $0.decode(String.self) }.joined(separator: "\n")
        }
    }

    /// Ends every connection to the database `name`, from a connection to `serverURL`: for tests.
    static func terminateConnections(to name: String, on serverURL: PostgresURL) throws(StoreError) {
        try withAdminConnection(serverURL, subject: "connections to \(name)") { session in
            try session.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name])
        }
    }

    /// How many server processes serve connections to the database `name`: for tests.
    static func connectionCount(to name: String, on serverURL: PostgresURL) throws(StoreError) -> Int {
        var count = 0
        try withAdminConnection(serverURL, subject: "connections to \(name)") { session in
            count = try session.one((Int).self, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", [name]) ?? 0
        }
        return count
    }
}
