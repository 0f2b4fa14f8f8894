import DiaryAPI
import Foundation
import Testing

/// Search, tags, cursors, export and import with the real binaries over real sockets.
@Suite(.serialized) struct SearchCLITests {
    /// An NDJSON export of `count` entries of alice in diary 1, one minute apart.
    private func exportFile(_ server: ServerProcess, count: Int) throws -> URL {
        let encoder = DiaryJSON.makeEncoder()
        var text = ""
        for id in 1...count {
            let created = Date(timeIntervalSince1970: 1_780_000_000 + TimeInterval(id * 60))
            let entry = Entry(
                id: Int64(id), diaryID: 1, author: "alice", title: "Entry \(id)", body: id == 7 ? "京都で紅葉を見た" : "body \(id)",
                created: created, updated: created.addingTimeInterval(5), tags: id % 2 == 0 ? ["even"] : ["odd", "x"]
            )
            text += String(decoding: try encoder.encode(entry), as: UTF8.self) + "\n"
        }
        let url = server.directory.appendingPathComponent("export.ndjson")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// The body of a chunked response, or nil when it is not well framed (or not terminated).
    private func unchunk(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = [], index = 0
        while true {
            guard let lineEnd = (index..<max(index, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16)
            else { return nil }
            let start = lineEnd + 2
            guard start + size + 2 <= bytes.count else { return nil }
            if size == 0 { return out }
            out += bytes[start..<start + size]
            index = start + size + 2
        }
    }

    @Test func exportStreamsChunkedAndImportRoundTrips() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        let file = try exportFile(server, count: 1_500)
        let imported = try server.diary(["import", file.path], token: token)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("1500 created, 0 skipped"), "\(imported.stdout)")
        #expect(imported.stderr.isEmpty, "no progress bar when stderr is a pipe: \(imported.stderr)")
        #expect(try server.diary(["import", file.path], token: token).stdout.contains("0 created, 1500 skipped"))

        // Streamed: chunked, no Content-Length, every entry exactly as imported.
        let response = try server.raw("GET", "/api/export?format=ndjson")
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding")?.lowercased() == "chunked")
        #expect(response.header("Content-Length") == nil)
        let body = try #require(unchunk(response.body))
        // HEAD: the headers only, and nothing after them that a client would read as a response.
        let connection = try RawConnection(port: server.port)
        try connection.send("HEAD /api/export HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(try connection.readResponse(head: true).status == 200)
        let next = try connection.readResponse()
        #expect(next.status == 200 && next.text.contains("ok"), "\(next.text)")
        #expect(String(decoding: body, as: UTF8.self) == (try String(contentsOf: file, encoding: .utf8)))

        // export json → a fresh server → import: the same entries, ids, dates and tags.
        let jsonPath = server.directory.appendingPathComponent("export.json").path
        #expect(try server.diary(["export", "--format", "json", "--output", jsonPath]).status == 0)
        let fresh = try ServerProcess()
        let freshToken = try fresh.addUser("alice")
        #expect(try fresh.diary(["import", jsonPath], token: freshToken).stdout.contains("1500 created"))
        #expect(try fresh.diary(["export"]).stdout == (try String(contentsOf: file, encoding: .utf8)))

        // Markdown: one file per entry with its front matter.
        let markdown = server.directory.appendingPathComponent("md")
        #expect(try server.diary(["export", "--format", "markdown", "--output", markdown.path]).status == 0)
        let seven = try String(contentsOf: markdown.appendingPathComponent("7.md"), encoding: .utf8)
        #expect(seven.hasPrefix("---\nentry_id: 7\ndiary_id: 1\nauthor: \"alice\"\n"), "\(seven)")
        #expect(seven.contains("tags: [\"odd\", \"x\"]\ntitle: \"Entry 7\"\n---\n\n京都で紅葉を見た"), "\(seven)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: markdown.path).count == 1_500)
    }

    @Test func searchListFiltersAndTagsFromTheCLI() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        #expect(try server.diary(["import", try exportFile(server, count: 250).path], token: token).status == 0)

        let search = try server.diary(["search", "紅葉を"])
        #expect(search.status == 0, "\(search.stderr)")
        #expect(search.stdout.contains("Entry 7") && search.stdout.contains("京都で[紅葉を]見た"), "\(search.stdout)")
        #expect(try server.diary(["search", "京都", "--json"]).stdout.contains("<mark>京都</mark>"))
        let unterminated = try server.diary(["search", "\"open"])
        #expect(unterminated.status == 64)
        let raw = try server.raw("GET", "/api/entries?q=%22open")
        #expect(raw.status == 400 && raw.text.contains("q"))

        let all = try server.diary(["list", "--all", "--tag", "Even", "--per-page", "7"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.contains("125 entries"), "\(all.stdout.suffix(200))")
        #expect(all.stdout.split(separator: "\n").count == 126)

        let day = try server.diary(["list", "--since", "2026-05-28T20:40:00Z", "--until", "2026-05-28T20:42:00Z"])
        #expect(day.status == 0, "\(day.stderr)")

        #expect(try server.diary(["add", "Back-dated", "--body", "old", "--tag", "Old Times", "--date", "2020-01-02"], token: token).status == 0)
        let old = try server.diary(["list", "--until", "2020-01-02", "--json"])
        let page = try JSONDecoder.diary.decode(EntryPage.self, from: Data(old.stdout.utf8))
        #expect(page.entries.map(\.title) == ["Back-dated"])
        #expect(page.entries[0].tags == ["old-times"])
        #expect(page.entries[0].created == RFC3339.date(from: "2020-01-02T00:00:00Z"))
        let tags = try server.diary(["tags"])
        #expect(tags.stdout.contains("125  even") && tags.stdout.contains("1  old-times"), "\(tags.stdout)")
        #expect(try server.diary(["list", "--since", "tomorrow"]).status == 64)
    }
}
