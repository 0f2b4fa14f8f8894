import DiaryAPI
import Foundation
import Testing

/// `diary browse` in a real terminal (tmux) against a real server: the list, an entry, paging by
/// cursor, search, a resize, a server that goes away, and the terminal left as it was.
@Suite(.serialized) struct BrowseTests {
    /// A server with 50 entries of alice's, one an hour from 2026-11-01 00:00 UTC: every fifth
    /// title Japanese, entry 48 private. Returns the server and alice's token.
    static func diaryOfFifty() throws -> (ServerProcess, String) {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        for number in 1...50 {
            let title = number % 5 == 0 ? "京都の紅葉 \(number)日目" : "Walk \(number)"
            let date = String(format: "2026-11-%02dT%02d:00:00Z", 1 + (number - 1) / 24, (number - 1) % 24)
            var arguments = ["add", title, "--body", "Day **\(number)** by the river.\n\n- maple\n- tea", "--date", date, "--tag", "walk"]
            if number == 48 { arguments.append("--private") }
            let added = try server.diary(arguments, token: alice)
            try #require(added.status == 0, "\(added.stderr)")
        }
        return (server, alice)
    }

    /// A shell in tmux that records `stty -a`, runs browse, then prints its exit status and
    /// whether `stty -a` reads the same (but for its first line, which holds the window size
    /// that a test may change); `pidFile` receives browse's process id.
    static func browseInShell(
        _ server: ServerProcess, token: String? = nil, arguments: String = "", pidFile: URL, columns: Int = 80, rows: Int = 24,
        environment: [String: String] = [:]
    ) throws -> Tmux {
        let client = "\(Binaries.client.path) --server \(server.url)" + (token.map { " --token \($0)" } ?? "")
        let script = """
            stty -a | sed 1d > \(pidFile.path).before; sh -c 'echo $$ > \(pidFile.path); exec \(client) browse \(arguments)'; \
            echo "EXIT $?"; stty -a | sed 1d > \(pidFile.path).after; \
            if cmp -s \(pidFile.path).before \(pidFile.path).after; then echo "STTY SAME"; else echo "STTY CHANGED"; fi; sleep 600
            """
        return try Tmux(script, columns: columns, rows: rows, environment: environment.merging(["TZ": "Asia/Tokyo", "NO_COLOR": "1"]) { $1 })
    }

    static func lines(_ screen: String) -> [Substring] { screen.split(separator: "\n", omittingEmptySubsequences: false) }

    @Test func listEntryPagingSearchAndResize() throws {
        let (server, alice) = try Self.diaryOfFifty()
        let pidFile = server.directory.appendingPathComponent("browse.pid")
        let tmux = try Self.browseInShell(server, token: alice, pidFile: pidFile)

        // The list: newest first, local time (Tokyo, 9 hours ahead), the private entry marked,
        // Japanese titles in the same column as the others.
        var screen = try tmux.waitFor("the first page") { $0.contains("1 of 50") }
        let rows = Self.lines(screen)
        #expect(rows[0].contains("Diary · all entries"))
        #expect(rows[1] == "> 2026-11-03 10:00  京都の紅葉 50日目", "\(screen)")
        #expect(rows[2] == "  2026-11-03 09:00  Walk 49")
        #expect(rows[3] == "  2026-11-03 08:00  Walk 48  [private]")

        // Enter opens the entry, rendered; q goes back to the same row.
        try tmux.send("j", "Enter")
        screen = try tmux.waitFor("entry 49") { $0.contains("Diary · entry 49") }
        #expect(screen.contains("alice · 2026-11-03 09:00"))
        #expect(screen.contains("Day 49 by the river.") && screen.contains("• maple"))
        #expect(!screen.contains("**"))
        try tmux.send("q")
        screen = try tmux.waitFor("the list again") { $0.contains("> 2026-11-03 09:00  Walk 49") }

        // G goes to the last loaded row (the first page's 30th); the second page follows by cursor.
        try tmux.send("G")
        screen = try tmux.waitFor("the second page loaded") { $0.contains(" of 50") && !$0.contains("loading") && $0.contains("Walk 21") }
        try tmux.send("G")
        screen = try tmux.waitFor("the oldest entry selected") { $0.contains("50 of 50") }
        #expect(screen.contains("> 2026-11-01 09:00  Walk 1"))

        // / searches (Japanese too) and shows only what it finds; Esc clears it.
        try tmux.send("/", "京都", "Enter")
        screen = try tmux.waitFor("the search results") { $0.contains("search \"京都\"") && $0.contains("1 of 10") }
        let results = Self.lines(screen).dropFirst().filter { $0.contains("2026-") }
        #expect(results.count == 10 && results.allSatisfy { $0.contains("京都の紅葉") }, "\(screen)")
        try tmux.send("Escape")
        try tmux.waitFor("all entries again") { $0.contains("Diary · all entries") && $0.contains("1 of 50") }

        // A resize lays the list out again for the new width: nothing wraps, the status line is last.
        try tmux.resize(columns: 36, rows: 12)
        screen = try tmux.waitFor("the narrow layout") { Self.lines($0).count >= 12 && Self.lines($0)[11].contains("1 of 50") }
        #expect(Self.lines(screen)[1] == "> 2026-11-03 10:00  京都の紅葉 50日…", "\(screen)")
        #expect(Self.lines(screen)[2] == "  2026-11-03 09:00  Walk 49")

        // q quits with the terminal as it was.
        try tmux.send("q")
        screen = try tmux.waitFor("the shell again") { $0.contains("STTY") }
        #expect(screen.contains("EXIT 0") && screen.contains("STTY SAME"), "\(screen)")
    }

    @Test func ctrlCAndSIGTERMLeaveTheTerminalAsItWas() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        #expect(try server.diary(["add", "Only entry", "--body", "text"], token: alice).status == 0)

        let interrupted = try Self.browseInShell(server, pidFile: server.directory.appendingPathComponent("a.pid"))
        try interrupted.waitFor("the list") { $0.contains("Only entry") }
        try interrupted.send("C-c")
        var screen = try interrupted.waitFor("the shell again") { $0.contains("STTY") }
        #expect(screen.contains("EXIT 130") && screen.contains("STTY SAME"), "\(screen)")

        let pidFile = server.directory.appendingPathComponent("b.pid")
        let terminated = try Self.browseInShell(server, pidFile: pidFile)
        try terminated.waitFor("the list") { $0.contains("Only entry") }
        let pid = try #require(Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, SIGTERM) == 0)
        screen = try terminated.waitFor("the shell again") { $0.contains("STTY") }
        #expect(screen.contains("EXIT 143") && screen.contains("STTY SAME"), "\(screen)")
    }

    @Test func aServerThatGoesAwayIsAMessageNotACrash() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        #expect(try server.diary(["add", "Before the outage", "--body", "text"], token: alice).status == 0)
        let tmux = try Self.browseInShell(server, arguments: "--search outage", pidFile: server.directory.appendingPathComponent("c.pid"))
        try tmux.waitFor("the search's list") { $0.contains("Diary · search \"outage\"") && $0.contains("Before the outage") }
        server.stop()
        try tmux.send("r")
        let screen = try tmux.waitFor("the failure in the status line") { $0.contains("cannot reach the diary server") }
        #expect(screen.contains("Before the outage"), "the rows already shown stay: \(screen)")
        try tmux.send("q")
        #expect(try tmux.waitFor("the shell again") { $0.contains("STTY") }.contains("EXIT 0"))
    }

    @Test func withoutATerminalBrowsePointsToList() throws {
        let server = try ServerProcess()
        let result = try server.diary(["browse"])
        #expect(result.status == 64)
        #expect(result.stderr == "error: diary browse needs a terminal; use diary list to print entries\n")
        #expect(result.stdout.isEmpty)
    }
}
