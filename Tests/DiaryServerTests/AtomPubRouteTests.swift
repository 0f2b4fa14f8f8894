import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import Testing

/// AtomPub through the router: credentials, scopes, what others see, hostile bodies, and the
/// response cache keeping an answer for the credentials it was built for only.
@Suite struct AtomPubRouteTests {
    static let atomType = "application/atom+xml;type=entry"

    static func basic(_ user: String, _ token: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(token)".utf8).base64EncodedString())
    }

    static func entry(_ title: String, draft: Bool = false, extra: String = "") -> [UInt8] {
        Array((#"<entry xmlns="http://www.w3.org/2005/Atom" xmlns:app="http://www.w3.org/2007/app"><title>\#(title)</title>"#
            + #"<content type="text/x-markdown">body of \#(title)</content><category term="Travel"/>\#(extra)"#
            + #"<app:control><app:draft>\#(draft ? "yes" : "no")</app:draft></app:control></entry>"#).utf8)
    }

    @Test func createReadReplaceAndDeleteAsTheOwner() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let auth = Self.basic("alice", alice)
        let created = t.request("POST", "/atom/diaries/1/entry", contentType: Self.atomType, body: Self.entry("First"), headers: [auth])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.headers["Content-Type"] == Self.atomType)
        let location = try #require(created.headers["Location"])
        #expect(location.hasSuffix("/atom/diaries/1/entry/1"))
        #expect(created.text.contains(#"<category term="travel"/>"#) && created.text.contains("<app:draft>no</app:draft>"))

        let read = t.request("GET", "/atom/diaries/1/entry/1", headers: [auth])
        #expect(read.status == 200 && read.body == created.body)
        #expect(read.headers["Cache-Control"] == "private, no-cache")
        let tag = try #require(read.headers["ETag"])
        // A replace with a stale tag is refused; with the current one it is made.
        let stale = t.request("PUT", "/atom/diaries/1/entry/1", contentType: Self.atomType, body: Self.entry("Second"), headers: [auth, ("If-Match", #""0000000000000000""#)])
        #expect(stale.status == 412)
        let replaced = t.request("PUT", "/atom/diaries/1/entry/1", contentType: Self.atomType, body: Self.entry("Second", draft: true), headers: [auth, ("If-Match", tag)])
        #expect(replaced.status == 200 && replaced.text.contains("<title type=\"text\">Second</title>") && replaced.text.contains("<app:draft>yes</app:draft>"))
        #expect(try t.request("GET", "/api/entries/1", token: alice).decoded(Entry.self).draft)
        #expect(t.request("GET", "/api/entries/1").status == 404)

        #expect(t.request("DELETE", "/atom/diaries/1/entry/1", headers: [auth]).status == 204)
        #expect(t.request("GET", "/atom/diaries/1/entry/1", headers: [auth]).status == 404)
    }

    @Test func credentialsAndScopes() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let reader = try t.request("POST", "/api/tokens", token: alice, json: #"{"name":"r","scope":"read"}"#).decoded(CreatedToken.self).token
        for headers in [[], [Self.basic("bob", alice)], [Self.basic("alice", "diary_nope")], [("Authorization", "Basic !!!")],
                        [("Authorization", #"WSSE profile="UsernameToken""#), ("X-WSSE", #"UsernameToken Username="alice""#)]] {
            let refused = t.request("GET", "/atom", headers: headers)
            #expect(refused.status == 401, "\(headers)")
            #expect(refused.headers["WWW-Authenticate"] == #"Basic realm="Diary""#)
            #expect(refused.problem?.status == 401)
        }
        #expect(t.request("GET", "/atom", token: alice).status == 200)
        #expect(t.request("GET", "/atom", headers: [Self.basic("alice", reader)]).status == 200)
        let write = t.request("POST", "/atom/diaries/1/entry", contentType: Self.atomType, body: Self.entry("x"), headers: [Self.basic("alice", reader)])
        #expect(write.status == 403 && write.problem?.type == "/problems/insufficient-scope")
        // Bob: alice's diary is not his collection, her entries are no members of his.
        _ = t.request("POST", "/atom/diaries/1/entry", contentType: Self.atomType, body: Self.entry("mine"), headers: [Self.basic("alice", alice)])
        #expect(t.request("GET", "/atom/diaries/1/entry", token: bob).status == 403)
        #expect(t.request("POST", "/atom/diaries/1/entry", token: bob, contentType: Self.atomType, body: Self.entry("x")).status == 403)
        #expect(t.request("GET", "/atom/diaries/1/entry/1", token: bob).status == 404)
        #expect(t.request("DELETE", "/atom/diaries/2/entry/1", token: bob).status == 404)
        #expect(t.request("GET", "/atom/diaries/2/entry/1", token: alice).status == 404)
        let method = t.request("PATCH", "/atom", token: alice)
        #expect(method.status == 405 && method.problem != nil)
    }

    @Test func hostileBodiesAre400AndWriteNothing() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let bodies = [
            #"<!DOCTYPE e [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><entry xmlns="http://www.w3.org/2005/Atom"><title>&b;</title></entry>"#,
            #"<!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]><entry xmlns="http://www.w3.org/2005/Atom"><title>&x;</title></entry>"#,
            #"<entry xmlns="http://www.w3.org/2005/Atom"><title>cut"#,
        ]
        for body in bodies {
            let answer = t.request("POST", "/atom/diaries/1/entry", token: alice, contentType: Self.atomType, body: Array(body.utf8))
            #expect(answer.status == 400 && answer.problem != nil, "\(body)")
        }
        let json = t.request("POST", "/atom/diaries/1/entry", token: alice, json: #"{"title":"t","body":"b"}"#)
        #expect(json.status == 415)
        let untitled = t.request("POST", "/atom/diaries/1/entry", token: alice, contentType: Self.atomType, body: Self.entry(" "))
        #expect(untitled.status == 422 && untitled.problem?.errors?.map(\.field) == ["title"])
        #expect(try t.request("GET", "/api/entries", token: alice).decoded(EntryPage.self).total == 0)
    }

    @Test func theCollectionIsPagedNewestFirstByCursor() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        for n in 1...25 {
            let date = RFC3339.string(from: Date(timeIntervalSince1970: 1_790_000_000 + Double(n) * 60))
            let answer = t.request(
                "POST", "/atom/diaries/1/entry", token: alice, contentType: Self.atomType,
                body: Self.entry("e\(n)", draft: n == 25, extra: "<updated>\(date)</updated>")
            )
            try #require(answer.status == 201, "\(answer.text)")
        }
        var titles: [String] = []
        var target: String? = "/atom/diaries/1/entry"
        while let next = target {
            let page = t.request("GET", next, token: alice)
            try #require(page.status == 200)
            #expect(page.headers["Content-Type"] == "application/atom+xml")
            titles += page.text.matches(of: /<title type="text">(e\d+)<\/title>/).map { String($0.1) }
            target = page.text.firstMatch(of: /<link rel="next" type="application\/atom\+xml" href="http:\/\/[^\/]+([^"]+)"\/>/)
                .map { String($0.1).replacingOccurrences(of: "&amp;", with: "&") }
        }
        #expect(titles == (1...25).reversed().map { "e\($0)" })
        let broken = t.request("GET", "/atom/diaries/1/entry?cursor=forged", token: alice)
        #expect(broken.status == 400 && broken.problem != nil)
    }

    /// A kept answer goes to the same credentials only, and none outlives a revoked token.
    @Test func keptAnswersAreServedToTheSameCredentialsOnly() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        _ = t.request("POST", "/atom/diaries/1/entry", token: alice, contentType: Self.atomType, body: Self.entry("private draft", draft: true))
        let named = try t.request("POST", "/api/tokens", token: alice, json: #"{"name":"blogsync","scope":"read"}"#).decoded(CreatedToken.self)
        let cache = try #require(t.app.responseCache)
        // The main token: a named one's first use of a minute is a write, which moves the version.
        let first = t.request("GET", "/atom/diaries/1/entry", headers: [Self.basic("alice", alice)])
        #expect(first.status == 200 && first.text.contains("private draft"))
        let hits = cache.counts.hits
        #expect(t.request("GET", "/atom/diaries/1/entry", headers: [Self.basic("alice", alice)]).body == first.body)
        #expect(cache.counts.hits == hits + 1)
        // Other credentials, or none, or WSSE's shared header: never the kept answer.
        #expect(t.request("GET", "/atom/diaries/1/entry", token: bob).status == 403)
        #expect(t.request("GET", "/atom/diaries/1/entry", headers: [Self.basic("bob", named.token)]).status == 401)
        #expect(t.request("GET", "/atom/diaries/1/entry").status == 401)
        #expect(t.request("GET", "/atom/diaries/1/entry", headers: [("Authorization", #"WSSE profile="UsernameToken""#)]).status == 401)
        #expect(cache.counts.hits == hits + 1)
        // Revoked: the next request with it is 401, the kept answer gone with the write.
        #expect(t.request("GET", "/atom/diaries/1/entry", headers: [Self.basic("alice", named.token)]).body == first.body)
        #expect(t.request("GET", "/atom/diaries/1/entry", headers: [Self.basic("alice", named.token)]).body == first.body)
        #expect(t.request("DELETE", "/api/tokens/\(named.id)", token: alice).status == 204)
        #expect(t.request("GET", "/atom/diaries/1/entry", headers: [Self.basic("alice", named.token)]).status == 401)
    }
}
