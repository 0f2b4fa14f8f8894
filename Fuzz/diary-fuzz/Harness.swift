import APITokens
import DiarySQLiteStore
import DiaryServer
import DiaryStore
import Foundation
import HTTPCore

/// The router on a real SQLite store in a temporary folder, with two users whose tokens the
/// generator uses. `check` answers one request and says what is wrong with the answer, if anything.
final class Harness: Sendable {
    let directory: URL
    let application: DiaryApplication
    let generator: RequestGenerator
    /// Strings no answer may contain: the tokens and the database's path.
    private let secrets: [String]

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-fuzz-\(UUID().uuidString)")
        let path = directory.appendingPathComponent("diary.sqlite3").path
        let store = try SQLiteDiaryStore(path: path)
        var tokens: [String] = []
        for name in ["alice", "bob"] {
            let token = APIToken.generate()
            let user = try store.createUser(name: name, tokenHash: TokenHash(token: token))
            _ = try store.createEntry(userID: user.id, diaryID: nil, title: "\(name)'s first", body: "seed")
            tokens.append(token)
        }
        application = DiaryApplication(store: store, configuration: .init(corsOrigins: ["https://example.com"]))
        generator = RequestGenerator(tokens: tokens)
        secrets = tokens + [path, directory.path]
    }

    func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The request made from `bytes`, its answer, and a description of what is wrong with the answer.
    func check(_ bytes: [UInt8]) -> (request: Request, response: Response, failure: String?) {
        var input = FuzzInput(bytes)
        let request = generator.request(from: &input)
        let response = application.respond(to: request)
        return (request, response, failure(of: response, to: request))
    }

    private func failure(of response: Response, to request: Request) -> String? {
        if response.status.code >= 500 || response.status.code < 100 {
            return "status \(response.status)"
        }
        // Under /api/ an error is problem+json; elsewhere an HTML error page, or problem+json when
        // an API route answered after all (the router reads `//api//entries` as `/api/entries`).
        let allowed = request.path.hasPrefix("/api/") || request.path == "/api" ? ["application/problem+json"] : ["application/problem+json", "text/html"]
        let type = response.headers[.contentType] ?? ""
        if response.status.code >= 400, !allowed.contains(where: { type.hasPrefix($0) }) {
            return "status \(response.status) without a \(allowed.joined(separator: " or ")) body"
        }
        let text = String(decoding: response.body, as: UTF8.self) + response.headers.map { "\($0.name.rawName): \($0.value)" }.joined()
        if let secret = secrets.first(where: { text.contains($0) }) {
            return "the answer contains a secret (\(secret.hasPrefix("diary_") ? "a token" : "the database path"))"
        }
        return nil
    }

    static func describe(_ request: Request) -> String {
        let headers = request.headers.map { "\($0.name.rawName): \($0.value.debugDescription)" }.joined(separator: "\n  ")
        let body = String(decoding: request.body.prefix(300), as: UTF8.self)
        return "\(request.method.rawValue.debugDescription) \(request.path.debugDescription) query=\(String(describing: request.rawQuery?.debugDescription))\n  \(headers)\n  body (\(request.body.count) bytes): \(body.debugDescription)"
    }
}
