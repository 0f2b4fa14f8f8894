import DiaryAPI
import DiaryPostgresStore
import DiarySQLiteStore
import DiaryServer
import APITokens
import DiaryStore
import Foundation
import HTTPCore
import HTTPTypes
import StoreTestSupport
import Testing

/// The application on a real database of its own, called in-process: an SQLite file in a
/// temporary folder, or with `DIARY_TEST_ENGINE=postgres` a fresh PostgreSQL database
/// (`TestEngine`), dropped when the application is released.
final class TestApplication: Sendable {
    /// Where the SQLite file is, and a folder for anything else a test writes, on either engine.
    let directory: URL
    let store: any DiaryStore
    let app: DiaryApplication
    /// The PostgreSQL database behind `store`, or nil on SQLite.
    private let postgres: ScratchPostgresDatabase?
    private let clock: @Sendable () -> Date

    /// Connections per store on PostgreSQL: tests run in parallel, each with a database and a
    /// store of its own, and the test cluster allows 300 connections in all.
    static let postgresPoolSize = 3

    /// - parameter queryTimeout: the store's (`--query-timeout`); nil: none.
    init(
        configuration: DiaryApplication.Configuration = .init(), queryTimeout: Duration? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) throws {
        directory = try Self.makeDirectory()
        self.clock = clock
        switch TestEngine.current {
        case .sqlite:
            postgres = nil
            store = try SQLiteDiaryStore(path: directory.appendingPathComponent("diary.sqlite3").path, queryTimeout: queryTimeout, clock: clock)
        case .postgres:
            let database = try ScratchPostgresDatabase()
            postgres = database
            store = try PostgresDiaryStore(url: database.url, poolSize: Self.postgresPoolSize, queryTimeout: queryTimeout, clock: clock)
        }
        var configuration = configuration
        configuration.clock = clock
        app = DiaryApplication(store: store, configuration: configuration)
    }

    /// Another application on a copy of `original`'s database as it is now: the same users,
    /// tokens, entries, ids to come and cursor secret. `original` must be idle meanwhile.
    init(copying original: TestApplication, configuration: DiaryApplication.Configuration = .init(), clock: @escaping @Sendable () -> Date) throws {
        directory = try Self.makeDirectory()
        self.clock = clock
        if let originalDatabase = original.postgres {
            let database = try ScratchPostgresDatabase(copying: originalDatabase)
            postgres = database
            store = try PostgresDiaryStore(url: database.url, poolSize: Self.postgresPoolSize, clock: clock)
        } else {
            postgres = nil
            let path = directory.appendingPathComponent("diary.sqlite3").path
            let originalPath = original.directory.appendingPathComponent("diary.sqlite3").path
            // The file and its write-ahead log hold every committed write (the original is idle);
            // SQLite rebuilds the log's index from the log when it opens the copy.
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: originalPath + suffix) {
                try FileManager.default.copyItem(atPath: originalPath + suffix, toPath: path + suffix)
            }
            store = try SQLiteDiaryStore(path: path, clock: clock)
        }
        var configuration = configuration
        configuration.clock = clock
        app = DiaryApplication(store: store, configuration: configuration)
    }

    private static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A second store on the same database with connections of its own, on the same clock, as
    /// another server process would open it.
    func openAnotherStore() throws -> any DiaryStore {
        if let postgres {
            return try PostgresDiaryStore(url: postgres.url, poolSize: Self.postgresPoolSize, clock: clock)
        }
        return try SQLiteDiaryStore(path: directory.appendingPathComponent("diary.sqlite3").path, clock: clock)
    }

    /// Closes `store` (either engine): every later call fails as `.unavailable`.
    func closeStore() throws {
        try Self.close(store)
    }

    static func close(_ store: any DiaryStore) throws {
        switch store {
        case let sqlite as SQLiteDiaryStore: try sqlite.close()
        case let postgres as PostgresDiaryStore: postgres.close()
        default: Issue.record("a store of neither engine: \(type(of: store))")
        }
    }

    deinit {
        // Connections first: the database is dropped when `postgres` goes, right after.
        (store as? PostgresDiaryStore)?.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates a user and returns its token.
    func addUser(_ name: String) throws -> String {
        let token = APIToken.generate()
        _ = try store.createUser(name: name, tokenHash: TokenHash(token: token))
        return token
    }

    func request(
        _ method: String, _ target: String, token: String? = nil, json: String? = nil,
        contentType: String? = "application/json", body: [UInt8]? = nil, headers extra: [(String, String)] = []
    ) -> Response {
        var headers = HTTPFields()
        if let token { headers.add(.authorization, "Bearer \(token)") }
        if json != nil || body != nil, let contentType { headers.add(.contentType, contentType) }
        for (name, value) in extra { headers.add(HTTPField.Name(name)!, value) }
        let bytes = body ?? json.map { Array($0.utf8) } ?? []
        return app.respond(to: Request(method: HTTPRequest.Method(method)!, target: target, headers: headers, body: bytes))
    }
}

extension Response {
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        try DiaryJSON.makeDecoder().decode(T.self, from: Data(body))
    }

    var problem: Problem? {
        guard headers["Content-Type"]?.hasPrefix("application/problem+json") == true else { return nil }
        return try? decoded(Problem.self)
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}
