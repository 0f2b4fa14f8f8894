import DiaryAPI
import DiaryReplica
import DiarySQLiteStore
import Foundation
import GRDB
import StoreTestSupport
import Testing

/// The replica as reads and writes meet it, with the real binaries: online reads leave it as
/// the last sync made it, `$EDITOR` edits it offline, a draft written offline stays a draft,
/// and a sync asks the server who the token's user is only once.
@Suite(.serialized) struct ReplicaOfflineTests {
    typealias DataHome = ReplicaSyncTests.DataHome

    /// The cursor a replica keeps.
    static func cursor(_ file: URL) throws -> String? {
        let store = try SQLiteDiaryStore(path: file.path)
        defer { try? store.close() }
        return try store.replicaState().cursor
    }

    /// Online reads never write the replica: a list page carries no feed cursor, so writing
    /// what it brought could leave the replica holding changes its cursor says it lacks (and a
    /// tombstone the page cannot show). The replica stays what the last sync made it; the next
    /// sync brings the rest.
    @Test func onlineReadsLeaveTheReplicaAsTheLastSyncMadeIt() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        #expect(try server.diary(["add", "one", "--body", "first", "--tag", "old"], token: alice).status == 0)
        let home = DataHome()
        #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0)
        let file = home.file(of: server, token: alice)
        let (heldBefore, cursorBefore) = (try ReplicaSyncTests.held(file), try Self.cursor(file))

        #expect(try server.diary(["add", "two", "--body", "second", "--tag", "new"], token: alice).status == 0)
        #expect(try server.diary(["edit", "1", "--title", "one, renamed"], token: alice).status == 0)
        for (arguments, expected) in [(["list"], "two"), (["show", "2"], "second"), (["search", "second"], "two"), (["tags"], "new")] {
            let read = try server.diary(arguments, token: alice, environment: home.environment)
            #expect(read.status == 0 && read.stdout.contains(expected) && read.stderr.isEmpty, "\(arguments): \(read.stderr)")
        }
        #expect(try ReplicaSyncTests.held(file) == heldBefore)
        #expect(try Self.cursor(file) == cursorBefore)

        #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0)
        #expect(try ReplicaSyncTests.held(file) == ReplicaSyncTests.exported(server, token: alice))
    }

    /// `diary edit ID` with no server opens the replica's copy in $EDITOR and queues the
    /// change with `If-Match` of the copy it was made on: sent by the next sync; a second
    /// replica's edit in between makes it a conflict that loses nothing.
    @Test func theEditorFormEditsTheReplicaOfflineAndSyncSendsIt() throws {
        try withTemporaryDirectory { folder in
            let server = try ServerProcess()
            let alice = try server.addUser("alice")
            #expect(try server.diary(["add", "Walk", "--body", "by the river"], token: alice).status == 0)
            #expect(try server.diary(["add", "Tea", "--body", "green"], token: alice).status == 0)
            let laptop = DataHome(), phone = DataHome()
            for home in [laptop, phone] { #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0) }
            // An editor that changes the body's words in place.
            let editor = folder.url.appendingPathComponent("editor.sh")
            try "#!/bin/sh\nsed -i -e 's/by the river/by the sea/' -e 's/green/black/' \"$1\"\n".write(to: editor, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor.path)
            var environment = laptop.environment
            environment["EDITOR"] = editor.path
            #expect(try server.diary(["edit", "2", "--body", "oolong"], token: alice, environment: phone.environment).status == 0)
            let port = server.port
            server.stop()

            for id in ["1", "2"] {
                let edited = try server.diary(["edit", id], token: alice, environment: environment)
                #expect(edited.status == 0 && edited.stdout.contains("[not sent]"), "\(edited.stderr)")
            }
            let shown = try server.diary(["show", "1"], token: alice, environment: environment)
            #expect(shown.stdout.contains("by the sea"), "\(shown.stdout)")
            let unchanged = try server.diary(["edit", "1"], token: alice, environment: laptop.environment.merging(["EDITOR": "true"]) { $1 })
            #expect(unchanged.status == 0 && unchanged.stdout.contains("nothing changed"), "\(unchanged.stderr)")

            try server.start(extraArguments: ["--port", String(port)])
            let synced = try server.diary(["sync"], token: alice, environment: laptop.environment)
            #expect(synced.status == 1 && synced.stderr.hasPrefix("conflict: entry 2 changed on the server"), "\(synced.stderr)")
            #expect(try server.diary(["show", "1"], token: alice).stdout.contains("by the sea"))
            #expect(try server.diary(["show", "2"], token: alice).stdout.contains("oolong"))
            let bodies = try ReplicaSyncTests.exported(server, token: alice).map(\.body)
            #expect(bodies.contains("black") && bodies.count == 3, "\(bodies)")
            #expect(try ReplicaSyncTests.held(laptop.file(of: server, token: alice)) == ReplicaSyncTests.exported(server, token: alice))
        }
    }

    /// `diary add --draft` offline is shown as a draft at once, and reaches the server as one.
    @Test func aDraftWrittenOfflineStaysADraft() throws {
        let server = try ServerProcess()
        let alice = try server.addUser("alice")
        #expect(try server.diary(["add", "first", "--body", "x"], token: alice).status == 0)
        let home = DataHome()
        #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0)
        let added = try server.diary(["add", "later", "--body", "not yet", "--draft", "--offline"], token: alice, environment: home.environment)
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try server.diary(["list", "--offline"], token: alice, environment: home.environment)
        let line = listed.stdout.split(separator: "\n").first { $0.contains("later") }
        #expect(line?.contains("[draft]") == true && line?.contains("[not sent]") == true, "\(listed.stdout)")
        #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0)
        let sent = try ReplicaSyncTests.exported(server, token: alice).first { $0.title == "later" }
        #expect(sent?.draft == true, "\(String(describing: sent))")
        #expect(try server.diary(["list"], environment: home.environment).stdout.contains("later") == false)
    }

    /// The token's user is asked of the server (`/api/me`) by the first sync only: the replica
    /// keeps the name, and its file is the token's.
    @Test func aSyncAsksWhoTheTokenIsOnlyOnce() throws {
        try withTemporaryDirectory { folder in
            let log = folder.url.appendingPathComponent("access.log")
            let server = try ServerProcess(extraArguments: ["--access-log", log.path])
            let alice = try server.addUser("alice")
            #expect(try server.diary(["add", "one", "--body", "x"], token: alice).status == 0)
            let home = DataHome()
            for _ in 0..<3 { #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0) }
            #expect(server.stop() == 0)
            let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
            #expect(lines.filter { $0.contains("route=/api/me ") }.count == 1, "\(lines)")
            #expect(lines.filter { $0.contains("route=/api/changes ") }.count == 3, "\(lines)")
        }
    }
}

/// `diary browse` on the replica, in tmux: without the server it browses what was synced (the
/// status line says offline, paging by the store's keyset), `r` syncs, a failed sync is the
/// status line's message, and once the server is back `r` brings what was written meanwhile.
@Suite(.serialized) struct OfflineBrowseTests {
    @Test func withoutTheServerBrowseReadsTheReplicaAndRSyncs() throws {
        let (server, alice) = try BrowseTests.diaryOfFifty()
        let home = ReplicaSyncTests.DataHome()
        #expect(try server.diary(["sync"], token: alice, environment: home.environment).status == 0)
        let port = server.port
        server.stop()

        let pidFile = server.directory.appendingPathComponent("offline.pid")
        let tmux = try BrowseTests.browseInShell(server, token: alice, pidFile: pidFile, environment: home.environment)
        var screen = try tmux.waitFor("the replica's list") { $0.contains("1 of 50") }
        let rows = BrowseTests.lines(screen)
        #expect(rows[1] == "> 2026-11-03 10:00  京都の紅葉 50日目", "\(screen)")
        #expect(rows[3] == "  2026-11-03 08:00  Walk 48  [private]")
        #expect(rows.contains { $0.hasPrefix(" offline · synced ") && $0.contains("(just now) · 1 of 50") }, "\(screen)")
        // Paging on from the replica to the last entry.
        try tmux.send("G")
        _ = try tmux.waitFor("the second page") { $0.contains("30 of 50") }
        try tmux.send("G")
        screen = try tmux.waitFor("the last entry") { $0.contains("50 of 50") }
        #expect(screen.contains("> 2026-11-01 09:00  Walk 1"), "\(screen)")

        // r syncs: the server is away, so one line says so, and the list stays.
        try tmux.send("r")
        screen = try tmux.waitFor("the failed sync") { $0.contains("sync failed: cannot reach the diary server") }
        #expect(screen.contains("Walk 1"), "\(screen)")

        // The server back on its port, an entry written there: r brings it.
        try server.start(extraArguments: ["--port", String(port)])
        #expect(try server.diary(["add", "Fresh from the server", "--body", "new", "--date", "2026-11-04"], token: alice).status == 0)
        try tmux.send("r")
        screen = try tmux.waitFor("the new entry") { $0.contains("Fresh from the server") && $0.contains("1 of 51") }
        #expect(BrowseTests.lines(screen).contains { $0.hasPrefix(" \(server.url) · 1 of 51") }, "back online: \(screen)")
        try tmux.send("q")
        #expect(try tmux.waitFor("the shell again") { $0.contains("STTY") }.contains("EXIT 0"))
        #expect(try ReplicaSyncTests.held(home.file(of: server, token: alice)).contains { $0.title == "Fresh from the server" })
    }
}
