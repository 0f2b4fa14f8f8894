import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import StoreTestSupport
import Testing

// MARK: - Visibility through the API

@Suite struct VisibilityTests {
    @Test func aPrivateEntryIsAnUnusedIDToEveryoneButItsOwner() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let secret = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"secret","body":"s","visibility":"private"}"#)
            .decoded(Entry.self)
        #expect(secret.visibility == .private)
        // The same users in a world where that id was never used.
        let never = try TestApplication()
        _ = try never.addUser("alice")
        let bobThere = try never.addUser("bob")

        let path = "/api/entries/\(secret.id)"
        let tag = try #require(t.request("GET", path, token: alice).headers["ETag"])
        let attempts: [(method: String, json: String?, headers: [(String, String)])] = [
            ("GET", nil, []), ("HEAD", nil, []), ("PUT", #"{"title":"x","body":"y"}"#, []),
            ("PATCH", #"{"title":"x"}"#, []), ("DELETE", nil, []), ("PATCH", #"{"title":"x"}"#, [("If-Match", tag)]),
        ]
        for attempt in attempts {
            for (token, tokenThere) in [(bob, bobThere), (nil, nil)] as [(String?, String?)] where attempt.method == "GET" || attempt.method == "HEAD" || token != nil {
                let here = t.request(attempt.method, path, token: token, json: attempt.json, headers: attempt.headers)
                let there = never.request(attempt.method, path, token: tokenThere, json: attempt.json, headers: attempt.headers)
                #expect(here.status == 404, "\(attempt.method) \(token == nil ? "anonymous" : "bob")")
                #expect(here.text == there.text, "\(attempt.method)")
                #expect(Self.fields(here) == Self.fields(there), "\(attempt.method)")
            }
        }
        // Nothing changed, and its owner still reads it.
        let owned = try t.request("GET", path, token: alice).decoded(Entry.self)
        #expect(owned == secret)
        #expect(t.request("GET", path, token: alice).headers["Cache-Control"] == "no-store")
    }

    @Test func unlistedEntriesAreReadByIDAndListedNowhere() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let shown = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"shown kyoto","body":"","tags":["trip"]}"#)
            .decoded(Entry.self)
        let link = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"link kyoto","body":"","tags":["trip","hidden"],"visibility":"unlisted"}"#)
            .decoded(Entry.self)
        #expect(try t.request("GET", "/api/entries/\(link.id)").decoded(Entry.self) == link)
        for target in ["/api/entries", "/api/entries?q=kyoto", "/api/entries?tag=trip", "/api/diaries/\(shown.diaryID)/entries"] {
            let page = try t.request("GET", target).decoded(EntryPage.self)
            #expect(page.entries.map(\.id) == [shown.id], "\(target)")
            #expect(page.total == 1, "\(target)")
            let own = try t.request("GET", target, token: alice).decoded(EntryPage.self)
            #expect(Set(own.entries.map(\.id)) == [shown.id, link.id], "\(target)")
        }
        #expect(try t.request("GET", "/api/tags").decoded(TagList.self).tags == [TagCount(name: "trip", count: 1)])
        #expect(try t.request("GET", "/api/tags", token: alice).decoded(TagList.self).tags == [
            TagCount(name: "hidden", count: 1), TagCount(name: "trip", count: 2),
        ])
        #expect(try t.request("GET", "/api/diaries/\(shown.diaryID)").decoded(Diary.self).entryCount == 1)
        #expect(try t.request("GET", "/api/diaries/\(shown.diaryID)", token: alice).decoded(Diary.self).entryCount == 2)
    }

    @Test func readsThatSendATokenCheckItAndAreNotKept() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        _ = t.request("POST", "/api/entries", token: alice, json: #"{"title":"a","body":""}"#)
        for target in ["/api/entries", "/api/entries/1", "/api/diaries", "/api/tags", "/api/health"] {
            let refused = t.request("GET", target, token: "diary_not-a-token")
            #expect(refused.status == 401, "\(target)")
            #expect(refused.headers["WWW-Authenticate"] != nil, "\(target)")
            #expect(t.request("GET", target).headers["Cache-Control"] == "no-cache", "\(target)")
            #expect(t.request("GET", target, token: alice).headers["Cache-Control"] == "no-store", "\(target)")
        }
    }

    @Test func unknownVisibilitiesAreRefusedNamingTheField() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let entry = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"a","body":""}"#).decoded(Entry.self)
        let cases: [(String, String, String, String)] = [
            ("POST", "/api/entries", #"{"title":"a","body":"","visibility":"secret"}"#, "visibility"),
            ("PUT", "/api/entries/\(entry.id)", #"{"title":"a","body":"","visibility":"Public"}"#, "visibility"),
            ("PATCH", "/api/entries/\(entry.id)", #"{"visibility":""}"#, "visibility"),
            ("POST", "/api/diaries", #"{"title":"d","default_visibility":"friends"}"#, "default_visibility"),
            ("PATCH", "/api/diaries/\(entry.diaryID)", #"{"default_visibility":"everyone"}"#, "default_visibility"),
            ("POST", "/api/import", #"[{"entry_id":50,"diary_id":1,"author":"alice","title":"t","body":"","created":"2026-11-01T00:00:00Z","updated":"2026-11-01T00:00:00Z","tags":[],"visibility":"hidden"}]"#, "[0].visibility"),
        ]
        for (method, target, json, field) in cases {
            let answer = t.request(method, target, token: alice, json: json)
            #expect(answer.status == 422, "\(method) \(target)")
            #expect(answer.problem?.errors?.map(\.field) == [field], "\(method) \(target)")
        }
        let text = t.request("POST", "/api/entries?visibility=secret", token: alice, contentType: "text/plain", body: Array("Title\n\nbody".utf8))
        #expect(text.status == 400 && text.problem?.errors?.map(\.field) == ["visibility"])
        #expect(try t.request("GET", "/api/entries/\(entry.id)").decoded(Entry.self) == entry)
    }

    @Test func diariesHaveADefaultThatNewEntriesTake() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let diary = try t.request("POST", "/api/diaries", token: alice, json: #"{"title":"Notes","default_visibility":"private"}"#).decoded(Diary.self)
        #expect(diary.defaultVisibility == .private)
        let note = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"n","body":"","diary_id":\#(diary.id)}"#).decoded(Entry.self)
        #expect(note.visibility == .private)
        let markdown = t.request(
            "POST", "/api/entries?visibility=unlisted", token: alice, contentType: "text/markdown", body: Array("# Title\n\nbody".utf8)
        )
        #expect(try markdown.decoded(Entry.self).visibility == .unlisted)
        let first = try #require(try t.request("GET", "/api/diaries").decoded(DiaryList.self).diaries.first)
        #expect(first.defaultVisibility == .public)

        #expect(t.request("PATCH", "/api/diaries/\(diary.id)", token: bob, json: #"{"title":"mine"}"#).status == 403)
        #expect(t.request("PATCH", "/api/diaries/999", token: alice, json: #"{"title":"x"}"#).status == 404)
        #expect(t.request("PATCH", "/api/diaries/\(diary.id)", token: alice, json: #"{}"#).status == 422)
        let changed = try t.request("PATCH", "/api/diaries/\(diary.id)", token: alice, json: #"{"title":"Open notes","default_visibility":"public"}"#)
            .decoded(Diary.self)
        #expect(changed.title == "Open notes" && changed.defaultVisibility == .public)
        let open = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"o","body":"","diary_id":\#(diary.id)}"#).decoded(Entry.self)
        #expect(open.visibility == .public)
    }

    @Test func publishingKeepsTheDateUnlessOneIsGiven() throws {
        let clock = ManualClock()
        let t = try TestApplication(clock: { clock.now })
        let alice = try t.addUser("alice")
        let draft = try t.request(
            "POST", "/api/entries", token: alice, json: #"{"title":"draft","body":"","visibility":"private","created":"2026-10-01T09:00:00Z"}"#
        ).decoded(Entry.self)
        clock.advance(3600)
        let published = try t.request("PATCH", "/api/entries/\(draft.id)", token: alice, json: #"{"visibility":"public"}"#).decoded(Entry.self)
        #expect(published.visibility == .public && published.created == draft.created && published.updated == clock.now)
        #expect(try t.request("GET", "/api/entries/\(draft.id)").decoded(Entry.self) == published)
        let moved = try t.request("PUT", "/api/entries/\(draft.id)", token: alice, json: #"{"title":"draft","body":"","created":"2026-11-01T00:00:00Z"}"#)
            .decoded(Entry.self)
        #expect(moved.created == RFC3339.date(from: "2026-11-01T00:00:00Z") && moved.visibility == .public)
        let hidden = try t.request("PATCH", "/api/entries/\(draft.id)", token: alice, json: #"{"visibility":"private"}"#).decoded(Entry.self)
        #expect(hidden.created == moved.created)
        #expect(t.request("GET", "/api/entries/\(draft.id)").status == 404)
    }

    @Test func importKeepsVisibilityAndValidatesBeforeSkipping() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let diary = try t.request("POST", "/api/diaries", token: alice, json: #"{"title":"Hidden","default_visibility":"unlisted"}"#).decoded(Diary.self)
        func line(_ id: Int, diary: Int64, _ extra: String) -> String {
            #"{"entry_id":\#(id),"diary_id":\#(diary),"author":"alice","title":"t\#(id)","body":"","created":"2026-11-01T00:00:00Z","updated":"2026-11-01T00:00:00Z","tags":[]\#(extra)}"#
        }
        let lines = [line(10, diary: 1, #","visibility":"private""#), line(11, diary: diary.id, ""), line(12, diary: 1, "")]
        let result = try t.request("POST", "/api/import", token: alice, contentType: "application/x-ndjson", body: Array(lines.joined(separator: "\n").utf8))
            .decoded(ImportResult.self)
        #expect(result == ImportResult(created: 3, skipped: 0))
        let own = try t.request("GET", "/api/entries", token: alice).decoded(EntryPage.self).entries
        #expect(Dictionary(uniqueKeysWithValues: own.map { ($0.id, $0.visibility) }) == [10: .private, 11: .unlisted, 12: .public])

        // An entry that breaks a rule is refused even when its id exists and it would be skipped.
        let tags = (1...21).map { "\"t\($0)\"" }.joined(separator: ",")
        let invalid = #"[{"entry_id":12,"diary_id":1,"author":"alice","title":"t","body":"","created":"2026-11-01T00:00:00Z","updated":"2026-11-01T00:00:00Z","tags":[\#(tags)]}]"#
        let refused = t.request("POST", "/api/import", token: alice, json: invalid)
        #expect(refused.status == 422 && refused.problem?.errors?.map(\.field) == ["[0].tags"])
        let ndjson = t.request("POST", "/api/import", token: alice, contentType: "application/x-ndjson", body: Array(invalid.dropFirst().dropLast().utf8))
        #expect(ndjson.status == 422)

        // Export: anyone gets the public entries; the owner all of theirs, with visibility.
        let anonymous = try ExportLines.entries(t.request("GET", "/api/export"))
        #expect(anonymous.map(\.id) == [12])
        let mine = try ExportLines.entries(t.request("GET", "/api/export", token: alice))
        #expect(mine.map(\.id) == [10, 11, 12] && mine.map(\.visibility) == [.private, .unlisted, .public])
        #expect(t.request("GET", "/api/export", token: alice).headers["Cache-Control"] == "no-store")
    }

    /// The header fields an answer is compared by: everything but the date of sending.
    static func fields(_ response: Response) -> [String] {
        response.headers.map { "\($0.name.rawName): \($0.value)" }
    }
}

extension Response {
    /// The body, a streamed one (export, the change feed) read to its end.
    func wholeBody() throws -> [UInt8] {
        try stream?.collect() ?? body
    }
}

/// Reads an NDJSON export.
enum ExportLines {
    static func entries(_ response: Response) throws -> [Entry] {
        var bytes = response.body
        if let stream = response.stream { bytes = try stream.collect() }
        return try String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { line in
            try DiaryJSON.makeDecoder().decode(Entry.self, from: Data(line.utf8))
        }
    }
}

// MARK: - Non-interference

/// For every read and every reader who is not the owner, an answer is byte for byte the same
/// (status, body, ETag, Last-Modified, Link, X-Total-Count, every other header) whether or not
/// the owner has private and unlisted entries, and whatever the owner writes, edits or deletes
/// of them. Two worlds get the same public data, on a copy of one database (the same users,
/// tokens and cursor secret) and one clock; one of them also gets private and unlisted entries
/// mixed in, by date, ids, tags and words, then has them written, edited and deleted.
@Suite struct NonInterferenceTests {
    @Test func readersOtherThanTheOwnerCannotTellPrivateEntriesExist() throws {
        let clock = ManualClock()
        let plain = try TestApplication(clock: { clock.now })
        let alice = try plain.addUser("alice"), bob = try plain.addUser("bob")
        let aliceDiary = try plain.request("POST", "/api/diaries", token: alice, json: #"{"title":"Travel"}"#).decoded(Diary.self)
        // Bob reads with named tokens of both scopes as well (made before the copy: both worlds hold them).
        let bobTokens = try ["read", "write"].map { scope in
            try plain.request("POST", "/api/tokens", token: bob, json: #"{"name":"bob's \#(scope)","scope":"\#(scope)"}"#).decoded(CreatedToken.self).token
        }
        let mixed = try TestApplication(copying: plain, clock: { clock.now })
        let worlds = [plain, mixed]

        // Public entries with ids that leave room for the private ones between them.
        let words = ["kyoto autumn leaves", "京都で紅葉を見た", "rainy day in tokyo", "a long walk by the river", "kyoto again, kyoto always"]
        var publicLines: [String: [String]] = ["alice": [], "bob": []]
        var privateLines: [String] = []
        for n in 0..<30 {
            let author = n % 3 == 2 ? "bob" : "alice"
            let diary: Int64 = author == "bob" ? 2 : (n % 2 == 0 ? 1 : aliceDiary.id)
            let created = RFC3339.string(from: Date(timeIntervalSince1970: 1_790_000_000 + Double(n) * 86_400))
            let tags = n % 4 == 0 ? #"["travel","japan"]"# : (n % 4 == 1 ? #"["travel"]"# : "[]")
            publicLines[author]!.append(
                #"{"entry_id":\#(2 * n + 1),"diary_id":\#(diary),"author":"\#(author)","title":"public \#(n) \#(words[n % 5])","body":"\#(words[(n + 2) % 5]) \#(n)","created":"\#(created)","updated":"\#(created)","tags":\#(tags),"visibility":"public"}"#
            )
            if author == "alice" {
                let hiddenCreated = RFC3339.string(from: Date(timeIntervalSince1970: 1_790_000_000 + Double(n) * 86_400 + 3600))
                let visibility = n % 2 == 0 ? "private" : "unlisted"
                privateLines.append(
                    #"{"entry_id":\#(2 * n + 2),"diary_id":\#(n % 4 == 0 ? 1 : aliceDiary.id),"author":"alice","title":"hidden \#(n) kyoto","body":"kyoto kyoto \#(words[n % 5]) secret \#(String(repeating: "long ", count: n))","created":"\#(hiddenCreated)","updated":"\#(hiddenCreated)","tags":["travel","secret"],"visibility":"\#(visibility)"}"#
                )
            }
        }
        // Two public entries that tie on "apple pear" until other entries make "pear" common:
        // if private words counted in the ranking, their order would show them.
        for (id, text) in [(61, "apple apple apple pear"), (63, "apple pear pear pear")] {
            publicLines["alice"]!.append(
                #"{"entry_id":\#(id),"diary_id":1,"author":"alice","title":"fruit","body":"\#(text)","created":"2026-11-01T00:00:00Z","updated":"2026-11-01T00:00:00Z","tags":[]}"#
            )
        }
        for id in [62, 64] {
            privateLines.append(
                #"{"entry_id":\#(id),"diary_id":1,"author":"alice","title":"pear pear","body":"pear pear pear pear","created":"2026-11-02T00:00:00Z","updated":"2026-11-02T00:00:00Z","tags":[],"visibility":"private"}"#
            )
        }
        func importLines(_ world: TestApplication, _ token: String, _ lines: [String]) throws {
            let answer = world.request("POST", "/api/import", token: token, contentType: "application/x-ndjson", body: Array(lines.joined(separator: "\n").utf8))
            try #require(answer.status == 200, "\(answer.text)")
        }
        // Everything in id order (an import keeps ids above every id given out), a run of one
        // author's lines at a time: public runs in both worlds, private and unlisted ones in one.
        var lines = publicLines.flatMap { author, texts in texts.map { (author, false, $0) } } + privateLines.map { ("alice", true, $0) }
        lines.sort { Self.id(of: $0.2) < Self.id(of: $1.2) }
        var index = 0
        while index < lines.count {
            let (author, hidden, _) = lines[index]
            var run: [String] = []
            while index < lines.count, lines[index].0 == author, lines[index].1 == hidden {
                run.append(lines[index].2)
                index += 1
            }
            for world in hidden ? [mixed] : worlds {
                try importLines(world, author == "bob" ? bob : alice, run)
            }
            clock.advance(60)
        }
        // The same public edits in both worlds.
        for world in worlds {
            #expect(world.request("PATCH", "/api/entries/3", token: alice, json: #"{"title":"public 1 retitled kyoto","tags":["kyoto"]}"#).status == 200)
            #expect(world.request("DELETE", "/api/entries/7", token: alice).status == 204)
        }
        let readers: [(name: String, token: String?)] = [
            ("anonymous", nil), ("bob", bob), ("bob's read token", bobTokens[0]), ("bob's write token", bobTokens[1]),
        ]
        let targets = Self.readTargets(diaries: [1, 2, aliceDiary.id], maxID: 70)

        func expectSameAnswers(_ stage: String, alsoReading extra: [String] = []) throws {
            let unlisted = try Self.unlistedIDs(mixed, alice)
            #expect(!unlisted.isEmpty)
            for reader in readers {
                for target in targets + extra {
                    // Readable by id: that is what unlisted means.
                    if target.hasPrefix("/api/entries/"), let id = Int64(target.dropFirst(13)), unlisted.contains(id) { continue }
                    if target.hasPrefix(Self.micropubSource), let id = Int64(target.dropFirst(Self.micropubSource.count)), unlisted.contains(id) { continue }
                    for method in ["GET", "HEAD"] {
                        let a = plain.request(method, target, token: reader.token), b = mixed.request(method, target, token: reader.token)
                        #expect(a.status == b.status, "\(stage): \(reader.name) \(method) \(target)")
                        #expect(try a.wholeBody() == b.wholeBody(), "\(stage): \(reader.name) \(method) \(target)")
                        #expect(VisibilityTests.fields(a) == VisibilityTests.fields(b), "\(stage): \(reader.name) \(method) \(target)")
                        if let tag = a.headers["ETag"] {
                            let revalidated = mixed.request(method, target, token: reader.token, headers: [("If-None-Match", tag)])
                            #expect(revalidated.status == 304, "\(stage): \(reader.name) \(method) \(target)")
                        }
                    }
                }
                // Paging by cursor, to the end, along the same path in both worlds.
                for start in ["/api/entries?per_page=4", "/api/entries?q=kyoto&per_page=3", "/api/entries?tag=travel&per_page=5&order=newest"] {
                    var target: String? = start
                    while let next = target {
                        let a = plain.request("GET", next, token: reader.token), b = mixed.request("GET", next, token: reader.token)
                        #expect(a.text == b.text, "\(stage): \(reader.name) \(next)")
                        target = try a.decoded(EntryPage.self).nextCursor.map { start + "&cursor=" + $0 }
                    }
                }
                // The change feed, page by page to the end, cursors included.
                var feed: String? = "/api/changes?limit=4"
                while let next = feed {
                    let a = try plain.request("GET", next, token: reader.token).wholeBody()
                    #expect(try a == mixed.request("GET", next, token: reader.token).wholeBody(), "\(stage): \(reader.name) \(next)")
                    let page = try DiaryJSON.makeDecoder().decode(ChangePage.self, from: Data(a))
                    feed = page.more ? "/api/changes?limit=4&since=" + page.next : nil
                }
            }
        }
        try expectSameAnswers("after the imports")

        // The owner writes, edits, tags, re-hides and deletes private and unlisted entries.
        // Scheduled posts are dated a month ahead of the test's clock: all of this is before their time.
        let ahead = RFC3339.string(from: clock.now + 30 * 86_400)
        let posted = try mixed.request("POST", "/api/entries", token: alice, json: #"{"title":"new kyoto secret","body":"kyoto","tags":["japan"],"visibility":"private"}"#)
            .decoded(Entry.self)
        clock.advance(60)
        for (method, target, json) in [
            ("PATCH", "/api/entries/\(posted.id)", #"{"title":"kyoto kyoto kyoto","tags":["travel","new"]}"#),
            ("PATCH", "/api/entries/2", #"{"visibility":"unlisted"}"#),
            ("PATCH", "/api/entries/4", #"{"visibility":"private","body":"changed kyoto"}"#),
            ("PUT", "/api/entries/10", #"{"title":"replaced","body":"kyoto river","tags":["japan"],"visibility":"unlisted"}"#),
            ("DELETE", "/api/entries/8", nil),
            ("POST", "/api/entries?visibility=unlisted", nil),
            // Drafts, meant to be public once published: as private as a private entry until then.
            ("POST", "/api/entries", #"{"title":"draft kyoto","body":"kyoto kyoto draft","tags":["travel","japan"],"visibility":"public","draft":true}"#),
            ("POST", "/api/entries", #"{"title":"unlisted draft","body":"kyoto","diary_id":\#(aliceDiary.id),"visibility":"unlisted","draft":true}"#),
            ("PATCH", "/api/entries/4", #"{"draft":true,"visibility":"public","tags":["travel"]}"#),
            // Scheduled posts: public and unlisted ones, a private entry scheduled to become
            // public, a draft dated ahead (still a draft) then published (so scheduled).
            ("POST", "/api/entries", #"{"title":"scheduled kyoto","body":"kyoto kyoto soon","tags":["travel","japan"],"visibility":"public","created":"\#(ahead)"}"#),
            ("POST", "/api/entries", #"{"title":"scheduled unlisted","body":"kyoto","diary_id":\#(aliceDiary.id),"visibility":"unlisted","created":"\#(ahead)"}"#),
            ("PATCH", "/api/entries/14", #"{"visibility":"public","created":"\#(ahead)","tags":["travel"]}"#),
            ("PATCH", "/api/entries/16", #"{"draft":true,"created":"\#(ahead)"}"#),
            ("PATCH", "/api/entries/16", #"{"draft":false,"visibility":"public","created":"\#(ahead)"}"#),
            // Through Micropub: a private post and a draft.
            ("POST", "/micropub", #"{"type":["h-entry"],"properties":{"content":["micropub kyoto secret"],"category":["travel"],"visibility":["private"]}}"#),
            ("POST", "/micropub", #"{"type":["h-entry"],"properties":{"name":["micropub draft kyoto"],"content":["kyoto"],"post-status":["draft"]}}"#),
        ] {
            let answer = json == nil && method == "POST"
                ? mixed.request(method, target, token: alice, contentType: "text/plain", body: Array("Unlisted note\n\nkyoto".utf8))
                : mixed.request(method, target, token: alice, json: json)
            #expect((200..<300).contains(answer.status.code), "\(method) \(target): \(answer.text)")
            clock.advance(60)
        }
        try expectSameAnswers("after the owner's writes")

        // The owner's named tokens: a read token reads the private entries and its writes are
        // refused; a write token writes hidden entries; making, using and revoking them shows
        // nothing to anyone else.
        let aliceReader = try mixed.request("POST", "/api/tokens", token: alice, json: #"{"name":"reader","scope":"read"}"#).decoded(CreatedToken.self)
        let aliceWriter = try mixed.request("POST", "/api/tokens", token: alice, json: #"{"name":"writer","scope":"write"}"#).decoded(CreatedToken.self)
        for json in [
            #"{"title":"kyoto by app","body":"kyoto","tags":["travel"],"visibility":"private"}"#,
            #"{"title":"kyoto scheduled by app","body":"kyoto","tags":["travel"],"visibility":"public","created":"\#(ahead)"}"#,
        ] {
            #expect(mixed.request("POST", "/api/entries", token: aliceWriter.token, json: json).status == 201)
            clock.advance(60)
        }
        #expect(mixed.request("GET", "/api/tokens", token: aliceWriter.token).status == 200)
        #expect(mixed.request("DELETE", "/api/tokens/\(aliceWriter.id)", token: aliceWriter.token).status == 204)
        let readByToken = try mixed.request("GET", "/api/entries?per_page=100", token: aliceReader.token).decoded(EntryPage.self)
        #expect(readByToken.entries.contains { $0.visibility == .private })
        #expect(mixed.request("POST", "/api/entries", token: aliceReader.token, json: #"{"title":"kyoto","body":"b"}"#).status == 403)
        #expect(mixed.request("DELETE", "/api/entries/2", token: aliceReader.token).status == 403)
        #expect(mixed.request("DELETE", "/api/tokens/\(aliceReader.id)", token: alice).status == 204)
        clock.advance(60)
        try expectSameAnswers("after the owner's tokens")

        // The owner uploads images no one else may see: one that no entry links to, one that a
        // private entry links to. To others they are ids never given out, and the list is theirs.
        var hiddenImages: [String] = []
        for bytes in [TestImages.png, TestImages.jpeg] {
            let uploaded = mixed.request("POST", "/api/media", token: alice, contentType: "image/png", body: bytes)
            hiddenImages.append(try uploaded.decoded(MediaItem.self).url)
            clock.advance(60)
        }
        let linking = mixed.request("PATCH", "/api/entries/\(posted.id)", token: alice, json: #"{"body":"![secret](\#(hiddenImages[1]))"}"#)
        #expect(linking.status == 200, "\(linking.text)")
        clock.advance(60)
        try expectSameAnswers("after private uploads", alsoReading: hiddenImages + ["/api/media", "/media/\(MediaID.random().text)"])

        // An import that names a private entry's id answers what one naming an unused id does.
        let probe = #"[{"entry_id":2,"diary_id":2,"author":"bob","title":"probe","body":"","created":"2026-11-01T00:00:00Z","updated":"2026-11-01T00:00:00Z","tags":[]}]"#
        let probed = (plain.request("POST", "/api/import", token: bob, json: probe), mixed.request("POST", "/api/import", token: bob, json: probe))
        #expect(probed.0.status == 200 && probed.0.text == probed.1.text && VisibilityTests.fields(probed.0) == VisibilityTests.fields(probed.1))

        // The owner, and only the owner, sees them.
        let own = try mixed.request("GET", "/api/entries?per_page=100", token: alice).decoded(EntryPage.self)
        let ownPlain = try plain.request("GET", "/api/entries?per_page=100", token: alice).decoded(EntryPage.self)
        #expect(own.total > ownPlain.total)
        #expect(own.entries.contains { $0.visibility == .private } && own.entries.contains { $0.visibility == .unlisted })
        #expect(own.entries.filter(\.draft).count == 4)
        #expect(own.entries.filter(\.scheduled).count == 5)
    }

    /// Every read an anonymous reader can make of this data: lists with every kind of filter,
    /// search in both orders, diaries, tags, export, every id up to `maxID`, and AtomPub's documents.
    static func readTargets(diaries: [Int64], maxID: Int64) -> [String] {
        var targets = ["/api/diaries", "/api/tags", "/api/export", "/api/export?format=json", "/api/health"]
        targets += ["/api/changes", "/api/changes?limit=1", "/api/changes?since=10", "/api/changes?since=10.3", "/api/changes?since=3.70&limit=5"]
        for perPage in [1, 4, 20] {
            for page in 1...3 { targets.append("/api/entries?page=\(page)&per_page=\(perPage)") }
        }
        for filter in [
            "q=kyoto", "q=kyoto&order=newest", "q=%E7%B4%85%E8%91%89", "q=ky", "q=%22kyoto+again%22", "q=kyo*+river", "tag=travel",
            "tag=travel&tag=japan", "tag=secret", "q=apple+pear", "since=2026-09-01&until=2026-10-15", "q=kyoto&tag=travel&since=2026-09-10", "q=secret",
        ] {
            targets += ["/api/entries?\(filter)", "/api/entries?\(filter)&per_page=2&page=2"]
            targets += diaries.map { "/api/diaries/\($0)/entries?\(filter)" }
        }
        targets += diaries.flatMap { ["/api/diaries/\($0)", "/api/diaries/\($0)/entries", "/api/diaries/\($0)/entries?per_page=3&page=2"] }
        targets += (1...maxID).map { "/api/entries/\($0)" }
        // AtomPub (issue 23): the service, each diary as a collection, each id as a member of each.
        targets += ["/atom"] + diaries.map { "/atom/diaries/\($0)/entry" }
        targets += diaries.flatMap { diary in (1...maxID).map { "/atom/diaries/\(diary)/entry/\($0)" } }
        // Micropub's reads: a post's source by every id, and the reader's own configuration.
        targets += (1...maxID).map { "\(micropubSource)\($0)" } + ["/micropub?q=config", "/micropub?q=destination"]
        return targets
    }

    /// `q=source` of the entry whose id follows.
    static let micropubSource = "/micropub?q=source&url=%2Fentries%2F"

    /// The `entry_id` of an import line.
    static func id(of line: String) -> Int64 {
        let digits = line.drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int64(digits) ?? 0
    }

    /// The ids of the owner's unlisted entries in `world`: not a draft's nor a scheduled entry's,
    /// which no one else may read by id either.
    static func unlistedIDs(_ world: TestApplication, _ owner: String) throws -> Set<Int64> {
        let page = try world.request("GET", "/api/entries?per_page=100", token: owner).decoded(EntryPage.self)
        return Set(page.entries.filter { $0.visibility == .unlisted && !$0.isWaiting }.map(\.id))
    }
}
