import DiaryAPI
import Foundation
import StoreTestSupport
import Testing

/// Images through the real binaries: `diary attach`, `diary add --image`, `diary media`, and
/// the image served by `diary-server` to the reader of the entry that shows it.
@Suite(.serialized) struct MediaCLITests {
    @Test func attachAddWithAnImageListAndDelete() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        try withTemporaryDirectory { directory in
            let file = directory.url.appendingPathComponent("eikan-do.png")
            try Data(TestImages.png).write(to: file)

            let attached = try server.diary(["attach", file.path], token: token)
            #expect(attached.status == 0, "\(attached.stderr)")
            let line = attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let url = try #require(line.firstMatch(of: /^!\[eikan-do\]\((\/media\/[0-9a-f]{32})\)$/)?.1, "\(line)")

            let added = try server.diary(["add", "Autumn", "--body", "Leaves.", "--image", file.path], token: token)
            #expect(added.status == 0 && added.stdout.contains("created entry 1"), "\(added.stderr)")
            let entry = try server.raw("GET", "/api/entries/1")
            let body = try DiaryJSON.makeDecoder().decode(Entry.self, from: Data(entry.body)).body
            let shown = try #require(body.firstMatch(of: /Leaves\.\n\n!\[eikan-do\]\((\/media\/[0-9a-f]{32})\)/)?.1, "\(body)")

            // The image the entry shows is anyone's; the one only attached is alice's alone.
            #expect(try server.raw("GET", String(shown)).status == 200)
            #expect(try server.raw("GET", String(url)).status == 404)
            #expect(try server.raw("GET", String(url), headers: [("Authorization", "Bearer \(token)")]).status == 200)

            let listed = try server.diary(["media"], token: token)
            #expect(listed.status == 0 && listed.stdout.contains("6×4") && listed.stdout.contains("in #1"), "\(listed.stdout)")
            let deleted = try server.diary(["media", "delete", String(url)], token: token)
            #expect(deleted.status == 0 && deleted.stdout.contains("deleted image"), "\(deleted.stderr)")
            #expect(try server.diary(["media", "delete", String(url)], token: token).status == 1)
            #expect(try server.diary(["attach", directory.url.appendingPathComponent("missing.jpg").path], token: token).status != 0)
        }
    }
}
