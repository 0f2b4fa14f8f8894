import DiaryAPI
import DiaryServer
import DiaryStore
import Foundation
import HTTPCore
import HTTPTypes
import Testing

/// `/api/tokens` and scopes through the router: a read token reads its owner's private entries
/// and every write it tries is a 403 problem; tokens are managed with a writing token only; a
/// revoked token is a 401 at once, on this store and on another on the same data.
@Suite struct TokenRouteTests {
    private func makeToken(_ t: TestApplication, _ token: String, name: String, scope: String) throws -> CreatedToken {
        let response = t.request("POST", "/api/tokens", token: token, json: #"{"name":"\#(name)","scope":"\#(scope)"}"#)
        #expect(response.status == 201, "\(response.text)")
        return try response.decoded(CreatedToken.self)
    }

    @Test func aReadTokenReadsPrivateEntriesAndEveryWriteIsForbidden() throws {
        let t = try TestApplication()
        let main = try t.addUser("alice")
        let created = try makeToken(t, main, name: "Feed reader", scope: "read")
        #expect(created.scope == .read && created.name == "Feed reader" && created.token.hasPrefix("diary_"))
        let secret = try t.request("POST", "/api/entries", token: main, json: #"{"title":"secret","body":"b","visibility":"private"}"#)
            .decoded(Entry.self)

        #expect(t.request("GET", "/api/entries/\(secret.id)", token: created.token).status == 200)
        #expect(try t.request("GET", "/api/entries", token: created.token).decoded(EntryPage.self).entries.map(\.id) == [secret.id])
        #expect(t.request("GET", "/api/me", token: created.token).status == 200)

        let writes: [(String, String, String?)] = [
            ("POST", "/api/entries", #"{"title":"t","body":"b"}"#),
            ("PATCH", "/api/entries/\(secret.id)", #"{"title":"t"}"#),
            ("PUT", "/api/entries/\(secret.id)", #"{"title":"t","body":"b"}"#),
            ("DELETE", "/api/entries/\(secret.id)", nil),
            ("POST", "/api/diaries", #"{"title":"d"}"#),
            ("PATCH", "/api/diaries/\(secret.diaryID)", #"{"title":"d"}"#),
            ("POST", "/api/import", #"{"entries":[]}"#),
            ("POST", "/api/tokens", #"{"name":"more","scope":"write"}"#),
            ("GET", "/api/tokens", nil),
            ("DELETE", "/api/tokens/\(created.id)", nil),
        ]
        for (method, target, json) in writes {
            let response = t.request(method, target, token: created.token, json: json)
            #expect(response.status == 403, "\(method) \(target)")
            #expect(response.problem?.type == "/problems/insufficient-scope", "\(method) \(target)")
        }
        #expect(try t.request("GET", "/api/entries/\(secret.id)", token: main).decoded(Entry.self) == secret)
    }

    @Test func aWriteTokenWritesAndManagesTokensButNeverSeesOneAgain() throws {
        let t = try TestApplication()
        let main = try t.addUser("alice")
        let writer = try makeToken(t, main, name: "iA Writer", scope: "write")
        #expect(t.request("POST", "/api/entries", token: writer.token, json: #"{"title":"t","body":"b"}"#).status == 201)
        let reader = try makeToken(t, writer.token, name: "reader", scope: "read")

        let listed = t.request("GET", "/api/tokens", token: writer.token)
        #expect(listed.status == 200)
        #expect(!listed.text.contains(writer.token) && !listed.text.contains(reader.token))
        #expect(listed.text.contains(#""last_used":null"#))  // the reader has not been used yet
        let tokens = try listed.decoded(TokenList.self).tokens
        #expect(tokens.map(\.id) == [writer.id, reader.id])
        #expect(tokens[0].lastUsed.map { Int($0.timeIntervalSince1970) % 60 } == 0)
    }

    @Test func aRevokedTokenFailsAtOnceHereAndOnAnotherServer() throws {
        let t = try TestApplication()
        let main = try t.addUser("alice")
        let other = try TestApplication.server(on: try t.openAnotherStore())
        let named = try makeToken(t, main, name: "app", scope: "write")
        #expect(other.respond(to: Self.get("/api/me", token: named.token)).status == 200)

        #expect(t.request("DELETE", "/api/tokens/\(named.id)", token: main).status == 204)
        #expect(t.request("GET", "/api/me", token: named.token).status == 401)
        #expect(other.respond(to: Self.get("/api/me", token: named.token)).status == 401)
        #expect(t.request("DELETE", "/api/tokens/\(named.id)", token: main).status == 404)
    }

    @Test func anotherUsersTokenIsNotFoundAndBodiesAreChecked() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let named = try makeToken(t, alice, name: "app", scope: "read")
        #expect(t.request("DELETE", "/api/tokens/\(named.id)", token: bob).status == 404)
        #expect(t.request("GET", "/api/me", token: named.token).status == 200)

        let wrong = t.request("POST", "/api/tokens", token: alice, json: #"{"name":"  ","scope":"admin"}"#)
        #expect(wrong.status == 422)
        #expect(Set(wrong.problem?.errors?.map(\.field) ?? []) == ["name", "scope"])
        #expect(t.request("POST", "/api/tokens", json: #"{"name":"x","scope":"read"}"#).status == 401)
    }

    private static func get(_ target: String, token: String) -> Request {
        var headers = HTTPFields()
        headers.add(.authorization, "Bearer \(token)")
        return Request(method: .get, target: target, headers: headers, body: [])
    }
}

extension TestApplication {
    /// An application on `store` (another server on the same data).
    static func server(on store: any DiaryStore) -> DiaryApplication {
        DiaryApplication(store: store)
    }
}
