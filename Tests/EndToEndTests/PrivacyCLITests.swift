import DiaryAPI
import Foundation
import Testing

/// Private and unlisted entries with the real binaries: written with `diary add`, marked in
/// the owner's listings, invisible to everyone else, and a diary's default changed from the CLI.
@Suite(.serialized) struct PrivacyCLITests {
    @Test func theOwnerSeesMarkedPrivateRowsAndNobodyElseSeesThem() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice"), bob = try server.addUser("bob")

        let secret = try server.diary(["add", "Secret plan", "--body", "kyoto in spring", "--private"], token: alice)
        #expect(secret.status == 0, "\(secret.stderr)")
        #expect(secret.stdout.contains("created entry 1: Secret plan  [private]"))
        let link = try server.diary(["add", "Link only", "--body", "", "--visibility", "unlisted"], token: alice)
        #expect(link.stdout.contains("[unlisted]"), "\(link.stderr)")
        #expect(try server.diary(["add", "Open", "--body", "kyoto"], token: alice).status == 0)
        let conflicting = try server.diary(["add", "x", "--body", "", "--private", "--visibility", "public"], token: alice)
        #expect(conflicting.status == 64 && conflicting.stderr.contains("--private"))

        let own = try server.diary(["list"], token: alice)
        #expect(own.stdout.contains("Secret plan  [private]") && own.stdout.contains("Link only  [unlisted]"))
        #expect(own.stdout.contains("3 entries"))
        for reader in [nil, bob] {
            let list = try server.diary(["list"], token: reader)
            #expect(list.stdout.contains("Open") && !list.stdout.contains("Secret") && !list.stdout.contains("Link only"))
            #expect(list.stdout.contains("1 entry"))
            let search = try server.diary(["search", "kyoto"], token: reader)
            #expect(!search.stdout.contains("Secret"))
            let show = try server.diary(["show", "1"], token: reader)
            #expect(show.status == 1 && show.stderr.contains("entry 1 does not exist"))
        }
        #expect(try server.diary(["show", "2"]).stdout.hasPrefix("Link only"))
        let shown = try server.diary(["show", "1"], token: alice)
        #expect(shown.stdout.hasPrefix("Secret plan") && shown.stdout.contains("· private"))
        #expect(try server.diary(["search", "kyoto"], token: alice).stdout.contains("Secret plan  [private]"))

        // Publishing it later keeps its date.
        let before = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.diary(["show", "1", "--json"], token: alice).stdout.utf8))
        let published = try server.diary(["edit", "1", "--visibility", "public"], token: alice)
        #expect(published.status == 0 && published.stdout == "updated entry 1\n", "\(published.stdout) \(published.stderr)")
        let after = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.diary(["show", "1", "--json"]).stdout.utf8))
        #expect(after.visibility == .public && after.created == before.created)
    }

    @Test func aDiarysDefaultIsShownAndSetFromTheCLI() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice"), bob = try server.addUser("bob")
        #expect(try server.diary(["diaries"]).stdout.contains("new: public"))
        let changed = try server.diary(["diaries", "edit", "1", "--default-visibility", "private"], token: alice)
        #expect(changed.status == 0 && changed.stdout.contains("new: private"), "\(changed.stderr)")
        #expect(try server.diary(["add", "Quiet", "--body", ""], token: alice).stdout.contains("[private]"))
        let refused = try server.diary(["diaries", "edit", "1", "--title", "mine"], token: bob)
        #expect(refused.status == 1 && refused.stderr.contains("(403)"))
        #expect(try server.diary(["diaries", "edit", "1"], token: alice).status == 64)
        #expect(try server.diary(["diaries", "--json"]).stdout.contains(#""default_visibility":"private""#))
    }
}
