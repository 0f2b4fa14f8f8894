import DiaryAPI
import Foundation
import Testing

/// `diary show` on a real terminal (tmux): Markdown rendered to the window's width, local
/// time, and a long entry paged through less.
@Suite(.serialized) struct TerminalShowTests {
    @Test func showRendersMarkdownAndPagesALongEntry() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        let body = "# Autumn\n\nWe walked **along** the river in 京都 and saw [the temple](https://example.com/t).\n\n- one\n- two\n\n> quoted"
        #expect(try server.diary(["add", "Kyoto 紅葉", "--body", body, "--tag", "travel", "--date", "2026-11-01T03:00:00Z"], token: alice).status == 0)
        let long = (1...200).map { "Line \($0) of a long entry." }.joined(separator: "\n\n")
        #expect(try server.diary(["add", "Long", "--body", long], token: alice).status == 0)
        let client = "\(Binaries.client.path) --server \(server.url)"

        // The test runner may set NO_COLOR: this terminal must not have it.
        let short = try Tmux("unset NO_COLOR; \(client) show 1; echo DONE; sleep 60", columns: 60, rows: 30, environment: ["TZ": "Asia/Tokyo"])
        let screen = try short.waitFor("the rendered entry") { $0.contains("DONE") }
        #expect(screen.contains("alice · 2026-11-01 12:00"))
        #expect(screen.contains("#travel"))
        #expect(screen.contains("We walked along the river in 京都 and saw the temple"))
        #expect(screen.contains("<https://example.com/t>"))
        #expect(screen.contains("• one") && screen.contains("│ quoted"))
        #expect(!screen.contains("**") && !screen.contains("# Autumn"))
        let escaped = try short.screen(escapes: true)
        #expect(escaped.contains("\u{1B}[1mKyoto"), "\(escaped.debugDescription)")

        // NO_COLOR: the same layout, no escapes.
        let plain = try Tmux("\(client) show 1; echo DONE; sleep 60", columns: 60, rows: 30, environment: ["NO_COLOR": "1"])
        try plain.waitFor("the entry") { $0.contains("DONE") }
        #expect(!(try plain.screen(escapes: true).contains("\u{1B}[1m")))

        // A long entry stops at the first screen in less; q leaves it.
        let paged = try Tmux("\(client) show 2; echo DONE; sleep 60", columns: 60, rows: 20)
        try paged.waitFor("the first screen") { $0.contains("Line 1 of") }
        #expect(!(try paged.screen().contains("DONE")))
        try paged.send("q")
        try paged.waitFor("the shell again") { $0.contains("DONE") }

        // Into a pipe: the text as written.
        let piped = try server.diary(["show", "1"])
        #expect(piped.stdout.contains("**along**") && piped.stdout.contains("# Autumn"))
    }
}
