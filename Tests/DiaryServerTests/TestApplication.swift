import DiaryAPI
import DiarySQLiteStore
import DiaryServer
import APITokens
import DiaryStore
import Foundation
import HTTPCore

/// The application on a real SQLite file in a temporary folder, called in-process.
final class TestApplication: Sendable {
    let directory: URL
    let store: SQLiteDiaryStore
    let app: DiaryApplication

    init(configuration: DiaryApplication.Configuration = .init(), clock: @escaping @Sendable () -> Date = Date.init) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteDiaryStore(path: directory.appendingPathComponent("diary.sqlite3").path, clock: clock)
        app = DiaryApplication(store: store, configuration: configuration)
    }

    /// Another application on a copy of `original`'s database file as it is now: the same
    /// users, tokens, entries, ids to come and cursor secret.
    init(copying original: TestApplication, configuration: DiaryApplication.Configuration = .init(), clock: @escaping @Sendable () -> Date) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("diary.sqlite3").path
        // The file and its write-ahead log hold every committed write (the original is idle);
        // SQLite rebuilds the log's index from the log when it opens the copy.
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: original.store.path + suffix) {
            try FileManager.default.copyItem(atPath: original.store.path + suffix, toPath: path + suffix)
        }
        store = try SQLiteDiaryStore(path: path, clock: clock)
        app = DiaryApplication(store: store, configuration: configuration)
    }

    deinit {
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
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let token { headers.add(.authorization, "Bearer \(token)") }
        if json != nil || body != nil, let contentType { headers.add(.contentType, contentType) }
        for (name, value) in extra { headers.add(HTTPHeaderName(name)!, value) }
        let bytes = body ?? json.map { Array($0.utf8) } ?? []
        return app.respond(to: HTTPRequest(method: HTTPMethod(method)!, target: target, headers: headers, body: bytes))
    }
}

extension HTTPResponse {
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        try DiaryJSON.makeDecoder().decode(T.self, from: Data(body))
    }

    var problem: Problem? {
        guard headers["Content-Type"]?.hasPrefix("application/problem+json") == true else { return nil }
        return try? decoded(Problem.self)
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}
