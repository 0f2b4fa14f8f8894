import Foundation
import StoreTestSupport
import Testing

/// An entry's image on a real terminal (tmux): one line with its description and size, its URL
/// as an OSC 8 hyperlink, or written out where hyperlinks are refused; in a pipe, the text as written.
@Suite(.serialized) struct TerminalImageTests {
    /// A server where alice's entry 1 shows a 6 × 4 PNG; the server, her token and the image's path.
    static func entryWithAnImage() throws -> (ServerProcess, String, String) {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        let url = try withTemporaryDirectory { directory in
            let file = directory.url.appendingPathComponent("eikan-do.png")
            try Data(TestImages.png).write(to: file)
            let added = try server.diary(["add", "Autumn", "--body", "Leaves.", "--image", file.path], token: alice)
            try #require(added.status == 0, "\(added.stderr)")
            let body = try server.diary(["show", "1"]).stdout
            return String(try #require(body.firstMatch(of: /\((\/media\/[0-9a-f]{32})\)/)?.1, "\(body)"))
        }
        return (server, alice, url)
    }

    /// The hyperlink the terminal is sent for the image at `path`, around its one line.
    static func hyperlink(_ server: ServerProcess, _ path: String) -> String {
        "\u{1B}]8;;\(server.url)\(path)\u{1B}\\[image: eikan-do · 6×4]\u{1B}]8;;\u{1B}\\"
    }

    @Test func showGivesTheImageOneLineAndAHyperlinkOnATerminal() throws {
        let (server, _, path) = try Self.entryWithAnImage()
        try withTemporaryDirectory { directory in
            let client = "\(Binaries.client.path) --server \(server.url)"
            let log = directory.url.appendingPathComponent("linked.log")
            let linked = try Tmux.recording("unset NO_COLOR DIARY_NO_HYPERLINKS; \(client) show 1; echo DONE; sleep 600", to: log, columns: 70, rows: 20)
            let screen = try linked.waitFor("the entry") { $0.contains("DONE") }
            #expect(screen.contains("Leaves.") && screen.contains("[image: eikan-do · 6×4]"), "\(screen)")
            #expect(!screen.contains("<\(path)>") && !screen.contains("]8;"), "\(screen)")
            #expect(try String(contentsOf: log, encoding: .utf8).contains(Self.hyperlink(server, path)))

            // Refused: the URL written out after the line.
            let plain = try Tmux("\(client) show 1; echo DONE; sleep 600", columns: 70, rows: 20, environment: ["DIARY_NO_HYPERLINKS": "1"])
            let written = try plain.waitFor("the entry") { $0.contains("DONE") }
            #expect(written.contains("[image: eikan-do · 6×4] <\(path)>"), "\(written)")
        }
        // In a pipe: the Markdown as written, no escapes.
        let piped = try server.diary(["show", "1"])
        #expect(piped.stdout.contains("![eikan-do](\(path))") && !piped.stdout.contains("\u{1B}"), "\(piped.stdout)")
    }

    @Test func browseShowsTheImageWithItsSizeAndAHyperlink() throws {
        let (server, alice, path) = try Self.entryWithAnImage()
        try withTemporaryDirectory { directory in
            let client = "\(Binaries.client.path) --server \(server.url) --token \(alice)"
            let log = directory.url.appendingPathComponent("browse.log")
            let tmux = try Tmux.recording("unset DIARY_NO_HYPERLINKS; \(client) browse; echo \"EXIT $?\"; sleep 600", to: log, environment: ["NO_COLOR": "1"])
            try tmux.waitFor("the list") { $0.contains("Autumn") }
            try tmux.send("Enter")
            let screen = try tmux.waitFor("the entry") { $0.contains("Diary · entry 1") && $0.contains("[image:") }
            #expect(screen.contains("[image: eikan-do · 6×4]") && !screen.contains("<\(path)>"), "\(screen)")
            #expect(try String(contentsOf: log, encoding: .utf8).contains(Self.hyperlink(server, path)))
            try tmux.send("q")
            try tmux.send("q")
            let end = try tmux.waitFor("browse's end") { $0.contains("EXIT ") }
            #expect(end.contains("EXIT 0"), "\(end)")
        }
    }
}
