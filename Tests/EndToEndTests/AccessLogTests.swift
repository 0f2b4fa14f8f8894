import Foundation
import StoreTestSupport
import Testing

/// `serve --access-log FILE`: one logfmt line per request with the fields the README lists,
/// the request id sent as `X-Request-Id`, every line written by a clean shutdown, and never a
/// token (from `Authorization` or a query string) nor a body.
@Suite struct AccessLogTests {
    static let fields = ["time", "method", "route", "status", "bytes", "duration", "id", "client"]

    /// The `key=value` pairs of a logfmt line (values here are never quoted: none holds a space).
    static func pairs(_ line: Substring) -> [(String, String)] {
        line.split(separator: " ").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    @Test func logsEveryRequestWithItsIDAndNeverAToken() throws {
        try withTemporaryDirectory { folder in
            let log = folder.url.appendingPathComponent("access.log")
            let server = try ServerProcess(extraArguments: ["--access-log", log.path])
            let token = try server.addUser("alice")
            let secretQuery = "query-secret-\(UUID().uuidString)"
            let secretBody = "body-secret-\(UUID().uuidString)"
            let answers = [
                try server.raw("GET", "/api/entries?token=\(secretQuery)&page=1", headers: [("Authorization", "Bearer \(token)")]),
                try server.raw(
                    "POST", "/api/entries", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                    body: #"{"title":"t","body":"\#(secretBody)"}"#
                ),
                try server.raw("GET", "/api/entries/999999"),
                try server.raw("GET", "/api/entries", headers: [("Authorization", "Bearer wrong-\(secretQuery)")]),
            ]
            #expect(answers.map(\.status) == [200, 201, 404, 401])
            let ids = answers.map { $0.header("X-Request-Id") }
            #expect(ids.allSatisfy { $0 != nil } && Set(ids).count == answers.count, "\(ids)")
            #expect(server.stop() == 0)

            let text = try String(contentsOf: log, encoding: .utf8)
            let lines = text.split(separator: "\n")
            #expect(lines.count == answers.count, "\(text)")
            for (line, (answer, id)) in zip(lines, zip(answers, ids)) {
                let pairs = Self.pairs(line)
                #expect(pairs.map(\.0) == Self.fields, "\(line)")
                let value = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
                #expect(value["status"] == String(answer.status))
                #expect(value["id"] == id)
                #expect(value["client"] == "127.0.0.1")
                #expect(value["bytes"] == String(answer.body.count))
                #expect(value["time"]?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(line)")
                #expect(value["duration"]?.wholeMatch(of: /\d+\.\d{6}/) != nil, "\(line)")
            }
            #expect(lines.map { Self.pairs($0).first { $0.0 == "route" }?.1 } == ["/api/entries", "/api/entries", "/api/entries/{entry_id}", "/api/entries"])
            for secret in [token, secretQuery, secretBody, "Bearer", "token="] {
                #expect(!text.contains(secret), "the access log holds \(secret)")
            }
        }
    }

    @Test func noRequestIDWithoutTheLog() throws {
        let server = try ServerProcess()
        #expect(try server.raw("GET", "/api/health").header("X-Request-Id") == nil)
    }
}
