import DiaryAPI
import Foundation
import Testing

/// The bad-input list of the API over real sockets: each answered as stated, nothing written,
/// and the server still serving afterwards.
@Suite(.serialized) struct HTTPTests {
    @Test func badInputIsAnsweredAndTheServerKeepsServing() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        let auth = ("Authorization", "Bearer \(token)")
        let json = ("Content-Type", "application/json")

        let cases: [(String, String, [(String, String)], String?, Int)] = [
            ("POST", "/api/entries", [auth, json], #"{"title":"#, 400),
            ("POST", "/api/entries", [auth, json], #"{"title":5,"body":""}"#, 400),
            ("GET", "/api/entries?page=0", [], nil, 400),
            ("GET", "/api/entries?per_page=101", [], nil, 400),
            ("GET", "/api/entries/abc", [], nil, 400),
            ("GET", "/api/entries/99999999999999999999", [], nil, 400),
            ("GET", "/api/entries/%00", [], nil, 400),
            ("POST", "/api/entries", [json], #"{"title":"t","body":""}"#, 401),
            ("GET", "/api/entries/7", [], nil, 404),
            ("GET", "/api/nope", [], nil, 404),
            ("DELETE", "/api/diaries", [auth], nil, 405),
            ("POST", "/api/entries", [auth, ("Content-Type", "text/html")], "<p>", 415),
            ("POST", "/api/entries", [auth, json], #"{"title":"","body":""}"#, 422),
            ("POST", "/api/entries", [auth, json], #"{"title":"t","body":"","diary_id":77}"#, 422),
        ]
        for (method, target, headers, body, status) in cases {
            let response = try server.raw(method, target, headers: headers, body: body)
            #expect(response.status == status, "\(method) \(target) \(body ?? "")")
            #expect(response.header("Content-Type")?.hasPrefix("application/problem+json") == true, "\(method) \(target)")
            let problem = try? JSONDecoder.diary.decode(Problem.self, from: Data(response.body))
            #expect(problem?.status == status)
        }
        let unauthorized = try server.raw("GET", "/api/me")
        #expect(unauthorized.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let notAllowed = try server.raw("PUT", "/api/entries")
        #expect(notAllowed.header("Allow") == "GET, POST, HEAD, OPTIONS")

        #expect(try server.raw("GET", "/api/health").status == 200)
        let page = try JSONDecoder.diary.decode(EntryPage.self, from: Data(try server.raw("GET", "/api/entries").body))
        #expect(page.total == 0)
    }

    @Test func aBodyOverTwoMebibytesIs413() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        let big = #"{"title":"big","body":""# + String(repeating: "x", count: 2 * 1024 * 1024) + #""}"#
        let response = try server.raw("POST", "/api/entries", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: big)
        #expect(response.status == 413)
        #expect(response.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        #expect(try server.raw("GET", "/api/health").status == 200)
    }

    @Test func sigtermStopsTheServerCleanly() throws {
        let server = try ServerProcess()
        #expect(try server.raw("GET", "/api/health").status == 200)
        #expect(server.stop(signal: SIGTERM) == 0)
        #expect(throws: (any Error).self) { try RawConnection(port: server.port) }
    }

    @Test func entriesSurviveARestart() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        #expect(try server.diary(["add", "Kept", "--body", "across restarts"], token: token).status == 0)
        server.stop(signal: SIGKILL)
        try server.start()
        let entry = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.raw("GET", "/api/entries/1").body))
        #expect(entry.title == "Kept" && entry.body == "across restarts")
    }
}

/// The README's curl examples for issue 3, over real sockets.
@Suite(.serialized) struct HTTPSemanticsEndToEndTests {
    @Test func conditionalRequestsAndIdempotencyOverTheWire() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        let auth = ("Authorization", "Bearer \(token)"), json = ("Content-Type", "application/json")

        let first = try server.raw("POST", "/api/entries", headers: [auth, json, ("Idempotency-Key", "retry-1")], body: #"{"title":"t","body":"b"}"#)
        let retry = try server.raw("POST", "/api/entries", headers: [auth, json, ("Idempotency-Key", "retry-1")], body: #"{"title":"t","body":"b"}"#)
        #expect(first.status == 201 && retry.status == 201)
        #expect(retry.header("Idempotent-Replayed") == "true")
        #expect(first.header("Location") == retry.header("Location"))

        let get = try server.raw("GET", "/api/entries/1")
        let tag = try #require(get.header("ETag"))
        let notModified = try server.raw("GET", "/api/entries/1", headers: [("If-None-Match", tag)])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        let head = try server.raw("HEAD", "/api/entries/1")
        #expect(head.status == 200 && head.header("ETag") == tag && head.header("Content-Length") == get.header("Content-Length"))

        #expect(try server.raw("PUT", "/api/entries/1", headers: [auth, json, ("If-Match", tag)], body: #"{"title":"new","body":"x"}"#).status == 200)
        let stale = try server.raw("PUT", "/api/entries/1", headers: [auth, json, ("If-Match", tag)], body: #"{"title":"lost","body":"y"}"#)
        #expect(stale.status == 412)
        #expect(try server.raw("GET", "/api/entries").header("X-Total-Count") == "1")
        let list = try server.raw("GET", "/api/entries?per_page=1")
        #expect(list.header("Link")?.contains(#"rel="last""#) == true)
        #expect(try server.raw("GET", "/api/openapi.json").status == 200)
    }
}
