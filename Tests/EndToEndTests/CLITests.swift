import DiaryAPI
import Foundation
import Testing

/// The README's first five minutes, with the real binaries: a token from `user add`, a post
/// over raw HTTP, then the `diary` client reading, writing and failing the way a person sees it.
@Suite(.serialized) struct CLITests {
    @Test func theReadmeFlow() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        #expect(token.hasPrefix("diary_") && token.count > 40 && !token.contains("\n"))

        #expect(try server.diary(["list"]).stdout.contains("no entries yet"))

        let posted = try server.raw("POST", "/api/entries", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                    body: #"{"title":"My first entry","body":"Hello from curl"}"#)
        #expect(posted.status == 201)
        #expect(posted.header("Location") == "/api/entries/1")

        let list = try server.diary(["list"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("My first entry"))
        #expect(list.stdout.contains("1 entr"))

        let show = try server.diary(["show", "1"])
        #expect(show.status == 0)
        #expect(show.stdout.hasPrefix("My first entry"))
        #expect(show.stdout.contains("alice"))
        #expect(show.stdout.contains("Hello from curl"))
    }

    @Test func addEditDeleteWithTheClient() throws {
        let server = try ServerProcess()
        let token = try server.addUser("bob")

        let added = try server.diary(["add", "Flag title", "--body", "flag body"], token: token)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("created entry 1"))

        let piped = try server.diary(["add", "Piped"], token: token, stdin: "from standard input\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        let pipedEntry = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.diary(["show", "2", "--json"]).stdout.utf8))
        #expect(pipedEntry.title == "Piped")
        #expect(pipedEntry.body.contains("from standard input"))

        let titled = try server.diary(["add"], token: token, stdin: "# Title from text\n\nThe body.\n")
        #expect(titled.status == 0, "\(titled.stderr)")
        let third = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.diary(["show", "3", "--json"]).stdout.utf8))
        #expect(third.title == "Title from text")
        #expect(third.body.trimmingCharacters(in: .whitespacesAndNewlines) == "The body.")

        let edited = try server.diary(["edit", "1", "--title", "New title"], token: token)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try server.diary(["show", "1"]).stdout.hasPrefix("New title"))

        #expect(try server.diary(["delete", "1"], token: token).status == 0)
        let gone = try server.diary(["show", "1"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("does not exist"))
        #expect(gone.stderr.split(separator: "\n").count == 1)

        let page = try JSONDecoder.diary.decode(EntryPage.self, from: Data(try server.diary(["list", "--json"]).stdout.utf8))
        #expect(page.total == 2)
        #expect(try server.diary(["whoami"], token: token).stdout.contains("bob"))
        #expect(try server.diary(["diaries"]).stdout.contains("bob's diary"))
    }

    @Test func listPagesWithAFooterThatNamesTheNextCommand() throws {
        let server = try ServerProcess()
        let token = try server.addUser("carol")
        for i in 1...3 { #expect(try server.diary(["add", "Entry \(i)", "--body", ""], token: token).status == 0) }
        let first = try server.diary(["list", "--per-page", "2"])
        #expect(first.stdout.contains("Entry 3") && first.stdout.contains("Entry 2") && !first.stdout.contains("Entry 1"))
        #expect(first.stdout.contains("diary list --page 2 --per-page 2"))
        let last = try server.diary(["list", "--per-page", "2", "--page", "2"])
        #expect(last.stdout.contains("Entry 1"))
        #expect(!last.stdout.contains("--page 3"))
    }

    @Test func failuresAreOneLineWithTheRightExitCode() throws {
        let server = try ServerProcess()
        let token = try server.addUser("dave")

        let noToken = try server.diary(["add", "x", "--body", "y"])
        #expect(noToken.status == 1)
        #expect(noToken.stderr.contains("DIARY_TOKEN") || noToken.stderr.contains("--token"))

        let badToken = try server.diary(["add", "x", "--body", "y"], token: "diary_wrong")
        #expect(badToken.status == 1)
        #expect(badToken.stderr.contains("401") || badToken.stderr.lowercased().contains("token"))
        #expect(!badToken.stderr.contains("diary_wrong"))

        let invalid = try server.diary(["add", "   ", "--body", "y"], token: token)
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("title"))

        let usage = try server.diary(["show", "not-a-number"])
        #expect(usage.status == 64)

        let unreachable = try run(Binaries.client, ["list"], environment: ["DIARY_SERVER": "http://127.0.0.1:9"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("http://127.0.0.1:9"))
        #expect(unreachable.stderr.split(separator: "\n").count == 1)
    }

    @Test func userTokenRotatesTheToken() throws {
        let server = try ServerProcess()
        let old = try server.addUser("erin")
        let rotated = try run(Binaries.server, ["user", "token", "erin", "--database", server.database])
        #expect(rotated.status == 0)
        let new = rotated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(new != old)
        #expect(try server.diary(["whoami"], token: new).status == 0)
        #expect(try server.diary(["whoami"], token: old).status == 1)
        let duplicate = try run(Binaries.server, ["user", "add", "erin", "--database", server.database])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("erin"))
        #expect(try run(Binaries.server, ["user", "token", "nobody", "--database", server.database]).status == 1)
    }
}

extension JSONDecoder {
    static var diary: JSONDecoder { DiaryJSON.makeDecoder() }
}

/// `diary edit` through an editor sends the ETag it read; when someone else changed the entry
/// meanwhile, the server says 412 and the user's text is kept in a file.
@Suite(.serialized) struct EditConflictTests {
    @Test func aConflictingEditKeepsTheTextInAFile() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        #expect(try server.diary(["add", "Original", "--body", "first"], token: token).status == 0)

        let editor = server.directory.appendingPathComponent("editor.sh")
        try """
            #!/bin/sh
            "\(Binaries.client.path)" edit 1 --body "changed elsewhere" >/dev/null
            printf 'Mine\\n\\nmy careful text\\n' > "$1"
            """.write(to: editor, atomically: true, encoding: .utf8)
        chmod(editor.path, 0o755)

        let result = try server.diary(["edit", "1"], token: token, environment: ["EDITOR": editor.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("changed on the server"))
        let path = try #require(result.stderr.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("my careful text"))
        try? FileManager.default.removeItem(atPath: path)
        let entry = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.diary(["show", "1", "--json"]).stdout.utf8))
        #expect(entry.title == "Original" && entry.body == "changed elsewhere")

        // Without a conflict the same editor flow saves.
        let plain = server.directory.appendingPathComponent("plain.sh")
        try "#!/bin/sh\nprintf 'Edited\\n\\nfresh text\\n' > \"$1\"\n".write(to: plain, atomically: true, encoding: .utf8)
        chmod(plain.path, 0o755)
        #expect(try server.diary(["edit", "1"], token: token, environment: ["EDITOR": plain.path]).status == 0)
        #expect(try server.diary(["show", "1"]).stdout.hasPrefix("Edited"))
    }
}
