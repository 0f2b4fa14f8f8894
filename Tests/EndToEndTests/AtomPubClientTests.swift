import Foundation
import Testing

/// AtomPub against the real server: Debian's Atompub::Client (libatompub-perl) runs
/// `Tests/AtomPubClient/client.pl` through discovery, create, read, update, a draft, paging and
/// delete; then what others see, WSSE's refusal, and xmllint on the documents served.
@Suite(.serialized) struct AtomPubClientTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("AtomPubClient/client.pl")

    static func basic(_ user: String, _ token: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(token)".utf8).base64EncodedString())
    }

    /// A named token of the user, made with `diary tokens add`.
    static func namedToken(_ server: ServerProcess, main: String, _ arguments: [String]) throws -> String {
        let added = try server.diary(["tokens", "add"] + arguments, token: main)
        #expect(added.status == 0, "\(added.stderr)")
        return try #require(added.stdout.split(separator: "\n").last.map(String.init))
    }

    @Test func atompubClientWritesAndReadsADiary() throws {
        let server = try ServerProcess()
        let main = try server.addUser("alice")
        let writer = try Self.namedToken(server, main: main, ["blogsync"])
        let reader = try Self.namedToken(server, main: main, ["reader", "--read-only"])
        let result = try run(URL(fileURLWithPath: "/usr/bin/perl"), [Self.script.path, server.url, "alice", writer, reader])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let steps = result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.map { $0.dropFirst(3) }
        #expect(steps == ["discover", "create", "read", "update", "draft", "list", "scopes", "delete"], "\(result.stdout)")
    }

    @Test func othersSeeNothingOfAUsersCollectionsAndWSSEIsRefused() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        let bob = try server.addUser("bob")
        let entry = #"<entry xmlns="http://www.w3.org/2005/Atom" xmlns:app="http://www.w3.org/2007/app"><title>Secret draft</title>"#
            + #"<content type="text/x-markdown">x</content><app:control><app:draft>yes</app:draft></app:control></entry>"#
        let service = try server.raw("GET", "/atom", headers: [Self.basic("alice", alice)])
        #expect(service.status == 200)
        #expect(service.header("Content-Type")?.hasPrefix("application/atomsvc+xml") == true)
        let body = String(decoding: service.body, as: UTF8.self)
        let collection = try #require(body.firstMatch(of: /href="[^"]*(\/atom\/diaries\/\d+\/entry)"/)).1
        let created = try server.raw(
            "POST", String(collection), headers: [Self.basic("alice", alice), ("Content-Type", "application/atom+xml;type=entry")], body: entry
        )
        #expect(created.status == 201)
        let member = try #require(created.header("Location").flatMap { $0.firstMatch(of: /\/atom\/.*/) }.map { String($0.0) })

        // Bob: his own service document, and alice's collection and entry are not his.
        let bobs = String(decoding: try server.raw("GET", "/atom", headers: [Self.basic("bob", bob)]).body, as: UTF8.self)
        #expect(!bobs.contains(String(collection)) && bobs.contains("<collection"))
        #expect(try server.raw("GET", String(collection), headers: [Self.basic("bob", bob)]).status == 403)
        #expect(try server.raw("GET", member, headers: [Self.basic("bob", bob)]).status == 404)
        #expect(try server.raw("GET", member, headers: [("Authorization", "Bearer \(bob)")]).status == 404)
        // A name that is not the token's owner, no credentials, and WSSE: 401 asking for Basic.
        for headers in [[Self.basic("bob", alice)], [], [("Authorization", #"WSSE profile="UsernameToken""#), ("X-WSSE", "UsernameToken Username=\"alice\"")]] {
            let refused = try server.raw("GET", String(collection), headers: headers)
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate") == #"Basic realm="Diary""#)
            #expect(refused.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        }
        // The documents are well-formed XML to libxml2's own checker.
        let feed = try server.raw("GET", String(collection), headers: [Self.basic("alice", alice)])
        #expect(String(decoding: feed.body, as: UTF8.self).contains("Secret draft"))
        for document in [service.body, feed.body, created.body] {
            let lint = try run(URL(fileURLWithPath: "/usr/bin/xmllint"), ["--noout", "-"], stdin: String(decoding: document, as: UTF8.self))
            #expect(lint.status == 0, "\(lint.stderr)")
        }
    }
}
