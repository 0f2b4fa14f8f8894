import DiaryAPI
import Foundation
import Testing

/// `diary add --draft` and `diary publish` with the real binaries: the draft is marked
/// `[draft]` for its owner and absent for anyone else until published.
@Suite(.serialized) struct DraftsCLITests {
    @Test func aDraftIsMarkedThenPublished() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        let added = try server.diary(["add", "Not yet", "--body", "soon", "--draft"], token: token)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("created entry 1: Not yet  [draft]"))

        #expect(try server.diary(["list"], token: token).stdout.contains("Not yet  [draft]"))
        #expect(try server.diary(["list"]).stdout.contains("no entries yet"))
        #expect(try server.diary(["show", "1"]).status == 1)

        let published = try server.diary(["publish", "1"], token: token)
        #expect(published.status == 0, "\(published.stderr)")
        #expect(published.stdout.contains("published entry 1: Not yet"))
        #expect(!published.stdout.contains("[draft]"))
        #expect(try server.diary(["list"]).stdout.contains("Not yet"))
    }
}
