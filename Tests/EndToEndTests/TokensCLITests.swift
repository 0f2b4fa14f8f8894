import DiaryAPI
import Foundation
import Testing

/// `diary tokens` with the real binaries: a read-only token made, listed, used to read and
/// refused a write, then revoked, as a person sees it.
@Suite(.serialized) struct TokensCLITests {
    @Test func addListUseAndRevokeANamedToken() throws {
        let server = try ServerProcess()
        let main = try server.addUser("alice")
        #expect(try server.diary(["add", "Secret", "--body", "b", "--private"], token: main).status == 0)

        let added = try server.diary(["tokens", "add", "Feed reader", "--read-only"], token: main)
        #expect(added.status == 0, "\(added.stderr)")
        let token = try #require(added.stdout.split(separator: "\n").last.map(String.init))
        #expect(token.hasPrefix("diary_") && token != main)
        #expect(added.stdout.contains("shown this once"))

        let listed = try server.diary(["tokens", "list"], token: main)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Feed reader") && listed.stdout.contains("read") && !listed.stdout.contains(token))

        #expect(try server.diary(["list"], token: token).stdout.contains("Secret"))
        let refused = try server.diary(["add", "Nope", "--body", "b"], token: token)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("read"))
        // Managing tokens needs the write scope.
        #expect(try server.diary(["tokens", "list"], token: token).status == 1)
        #expect(try server.diary(["tokens", "list"], token: main).stdout.contains("used "))

        let id = try #require(listed.stdout.split(separator: " ", omittingEmptySubsequences: true).first.map(String.init))
        let revoked = try server.diary(["tokens", "revoke", id], token: main)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(try server.diary(["whoami"], token: token).status == 1)
        #expect(try server.diary(["tokens", "list"], token: main).stdout.contains("no named tokens yet"))
    }
}
