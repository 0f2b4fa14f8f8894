import DiaryPostgresStore
import Foundation

/// The engine the router and end-to-end tests run on: SQLite, unless `DIARY_TEST_ENGINE` is
/// `postgres`, and then every test makes a database of its own on the server
/// `DIARY_TEST_POSTGRES_URL` names (`scripts/test` runs those suites once on each).
///
/// One place decides, so that a suite cannot run half on one engine and half on the other. A
/// test about what only SQLite has (its file, its pragmas) says
/// `.enabled(if: TestEngine.current == .sqlite, "why")`; every other runs on both.
public enum TestEngine: String, Sendable, CustomStringConvertible {
    case sqlite, postgres

    /// `DIARY_TEST_ENGINE`, read once. Anything but `sqlite`, `postgres` or nothing stops the
    /// run: a misspelt engine silently tested on SQLite would pass for the wrong reason.
    public static let current: TestEngine = {
        let text = ProcessInfo.processInfo.environment["DIARY_TEST_ENGINE"] ?? ""
        guard !text.isEmpty else { return .sqlite }
        guard let engine = TestEngine(rawValue: text.lowercased()) else {
            fatalError("DIARY_TEST_ENGINE is \(text); it must be sqlite or postgres")
        }
        if engine == .postgres && testPostgresServer == nil {
            fatalError("DIARY_TEST_ENGINE=postgres needs DIARY_TEST_POSTGRES_URL (eval \"$(scripts/postgres)\" starts a server)")
        }
        return engine
    }()

    public var description: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}

/// The server `DIARY_TEST_POSTGRES_URL` names (`scripts/postgres` starts a throwaway one), or
/// nil. Its path is the database to connect to while creating and dropping others: `postgres`.
public let testPostgresServer: PostgresURL? = {
    guard let text = ProcessInfo.processInfo.environment["DIARY_TEST_POSTGRES_URL"], !text.isEmpty else { return nil }
    guard let url = try? PostgresURL(text) else { fatalError("DIARY_TEST_POSTGRES_URL is not a postgres:// URL") }
    return url
}()

/// A new, empty database on the test server, dropped (with any connection still open to it)
/// when the last holder lets go. Holders that run servers on it stop them first.
public final class ScratchPostgresDatabase: Sendable {
    public let name: String
    public let server: PostgresURL

    /// The database, for a store or for `diary-server --database` (no password: the test
    /// server trusts loopback, and `PGPASSWORD` or `~/.pgpass` serve one that does not).
    public var url: PostgresURL { server.withDatabase(name) }

    /// Creates the database on `server` (the test server by default).
    public init(on server: PostgresURL? = testPostgresServer) throws {
        guard let server else { throw NoTestPostgresServer() }
        self.server = server
        name = "diary_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDiaryStore.createDatabase(named: name, on: server)
    }

    /// A new database holding a copy of `original`'s data as it is now. PostgreSQL copies only
    /// a database no one is connected to, so every connection to `original` is ended first:
    /// its stores replace them on their next call, which must not be running now.
    public init(copying original: ScratchPostgresDatabase) throws {
        server = original.server
        name = "diary_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDiaryStore.copyDatabase(named: original.name, to: name, on: server)
    }

    deinit {
        try? PostgresDiaryStore.dropDatabase(named: name, on: server)
    }
}

public struct NoTestPostgresServer: Error, CustomStringConvertible {
    public var description: String { "DIARY_TEST_POSTGRES_URL names no PostgreSQL server" }
}
