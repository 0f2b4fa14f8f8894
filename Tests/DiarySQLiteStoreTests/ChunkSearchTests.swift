import DiaryAPI
import DiaryStore
@testable import DiarySQLiteStore
import Foundation
import GRDB
import StoreKernel
import StoreTestSupport
import Testing

/// Terms of three characters or more that the chunk index (schema v8) narrows: a word, a piece
/// of one, a phrase across words. Through the chunks a search finds exactly what the trigram
/// indexes find, in the same order, as each viewer may list it, and follows every write.
struct ChunkSearchTests {
    /// The ids `viewerID` finds for the phrase `term`, in `order`, with the chunks or without.
    func ids(
        _ store: SQLiteDiaryStore, _ term: String, viewerID: Int64? = nil, order: EntryOrder = .newest, narrowed: Bool = true
    ) throws -> [Int64] {
        let filter = EntryFilter(query: "\"\(term)\"", order: order)
        let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter, viewerID: viewerID)
        return try store.entries(query, narrowedByChunks: narrowed).page.entries.map(\.id)
    }

    /// How the store narrows `term` by its chunks, or nil when it searches the trigrams.
    func narrowing(_ store: SQLiteDiaryStore, _ term: String) throws -> TermNarrowing? {
        try store.read(.operation("chunks")) { db in try SQLiteDiaryStore.narrowings(db, terms: [term])[term] }
    }

    @Test func narrowedTermsFindWhatTheTrigramsFind() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let day = Date(timeIntervalSince1970: 1_767_225_600)
            var minute = 0.0
            func post(_ title: String, _ body: String, _ visibility: Visibility = .public) throws {
                minute += 1
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: title, body: body, created: day + minute * 60, visibility: visibility)
            }
            try post("Trip", "Zanzibar, the island.")
            try post("LOUD", "ZANZIBAR\nnext line")
            try post("bridge", "the river bridge at dawn")
            try post("two spaces", "river  bridge")
            try post("a line apart", "the river\nbridge")
            try post("inside", "xriver bridgey")
            try post("river", "bridge, across title and body")
            try post("kelvin", "\u{212A}ite flying, \u{212A}ITE, ki\u{17F}\u{17F}")
            try post("accents", "café au lait, naïve")
            try post("escapes", "100%_sure and back\\slash \"quoted\"")
            try post("mixed", "京都zanzibar旅\tand a tab")
            try post("private", "zanzibar in secret", .private)
            try post("unlisted", "the river bridge, unlisted", .unlisted)
            let terms = [
                "zanzibar", "ZanZibar", "river bridge", "the river bridge", "river bridge at", "er bri", "kite", "KITE", "kiss", "caf",
                "café au", "0%_s", "k\\s", "\"quoted", "and a tab", "a tab", "zanzibar旅", "nowhere", "river  bridge", "bridge, across",
            ]
            for term in terms {
                for viewer in [nil, alice.id, bob.id] {
                    for order in [EntryOrder.newest, .relevance] {
                        let narrowed = try ids(store, term, viewerID: viewer, order: order)
                        let plain = try ids(store, term, viewerID: viewer, order: order, narrowed: false)
                        #expect(narrowed == plain, "\(term) as \(viewer.map(String.init) ?? "anonymous"), \(order)")
                    }
                }
            }
            #expect(try ids(store, "zanzibar").count == 3)
            #expect(try ids(store, "zanzibar", viewerID: alice.id).count == 4)
            #expect(try ids(store, "river bridge").count == 2)
            #expect(try ids(store, "kite").count == 1 && ids(store, "kiss").count == 1)
            // Narrowed: all-ASCII terms whose parts hold a letter or digit, joined by single
            // spaces. A word's chunks hold it; a phrase's need not.
            for term in ["zanzibar", "kite", "0%_s", "\"quoted", "nowhere"] {
                #expect(try narrowing(store, term)?.holdsTerm == true, "\(term)")
            }
            for term in ["river bridge", "the river bridge", "a tab"] {
                #expect(try narrowing(store, term)?.holdsTerm == false, "\(term)")
            }
            for term in ["café au", "zanzibar旅", "river  bridge", "a\ttab", "river\nbridge", "-_-"] {
                #expect(try narrowing(store, term) == nil, "\(term)")
            }
        }
    }

    /// The weight of each narrowed term counts its public entries only: many private entries
    /// holding one of two words would lower its weight below the other's and turn their order
    /// round. Each viewer gets FTS5's order.
    @Test func privateEntriesWeighNothingInTheRelevanceOfNarrowedWords() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let day = Date(timeIntervalSince1970: 1_767_225_600)
            var minute = 0.0
            func post(_ body: String, _ visibility: Visibility = .public) throws -> Int64 {
                minute += 1
                return try store.createEntry(userID: alice.id, diaryID: nil, title: "day", body: body, created: day + minute * 60, visibility: visibility).id
            }
            // Publicly, "albatross" is in 7 entries and "bittern" in 12: albatross weighs more,
            // and the entry holding it twice comes first. With its 40 private entries counted,
            // albatross would weigh bm25's floor.
            let twiceAlbatross = try post("albatross albatross bittern")
            let twiceBittern = try post("albatross bittern bittern")
            for index in 0..<50 {
                let words = index < 5 ? "albatross" : index < 15 ? "bittern" : "heron"
                _ = try post("\(words) on the shore")
            }
            for _ in 0..<40 { _ = try post("albatross in the reeds", .private) }
            for viewer in [nil, alice.id] {
                let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: EntryFilter(query: "albatross bittern"), viewerID: viewer)
                let narrowed = try store.entries(query, narrowedByChunks: true).page.entries.map(\.id)
                let plain = try store.entries(query, narrowedByChunks: false).page.entries.map(\.id)
                #expect(narrowed == plain && narrowed == [twiceAlbatross, twiceBittern], "\(viewer ?? 0)")
            }
        }
    }

    /// A narrowed term with other terms: another narrowed one, one of another script, a short
    /// one, a common one. The narrowed term's entries lead, and the others are checked in each.
    @Test func narrowedTermsWithOthersFindWhatTheTrigramsFind() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.createDiary(ownerID: alice.id, title: "many")
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let bodies = ["the Zanzibar coffee", "coffee in 京都", "zanzibar, café au lait", "ZANZIBAR 京都市 river bridge", "coffee", "Café"]
            try store.insertEntries((0..<300).map { index in
                // In the entries of 京都市 and of café, each word repeated a varying number of
                // times, so that the order of `zanzibar 京都市` by relevance turns on each term's
                // weight, and that of `zanzibar café` on CAFÉ counted as café.
                let repeats = switch index % bodies.count {
                case 3: String(repeating: " 京都市", count: index % 4) + String(repeating: " zanzibar", count: index % 3)
                case 2: String(repeating: " CAFÉ", count: index % 4) + String(repeating: " zanzibar", count: index % 5)
                default: ""
                }
                return SeedEntry(
                    diaryID: diary.id, title: "day \(index)", body: bodies[index % bodies.count] + repeats, created: start + Double(index)
                )
            })
            let queries = [
                "zanzibar coffee", "coffee zanzibar", "zanzibar 京都", "zanzibar café", "zanzibar CAFÉ", "\"river bridge\" zanzibar",
                "zanzibar day", "zanzibar nowhere", "zanzibar zanzibar", "zanzibar 京都市", "京都市 zanzibar coffee",
            ]
            for text in queries {
                for viewer in [nil, alice.id] {
                    for order in [EntryOrder.newest, .relevance] {
                        let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: EntryFilter(query: text, order: order), viewerID: viewer)
                        let narrowed = try store.entries(query, narrowedByChunks: true).page
                        let plain = try store.entries(query, narrowedByChunks: false).page
                        #expect(narrowed.entries.map(\.id) == plain.entries.map(\.id) && narrowed.total == plain.total, "\(text), \(order)")
                    }
                }
            }
        }
    }

    /// Random texts of syllables, punctuation, case, line breaks and the signs the trigram
    /// tokenizer folds into ASCII, searched for random pieces of themselves and for strings of
    /// the same pieces: the chunks change no answer.
    @Test func randomPiecesOfRandomTextsFindTheSameEntries() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            var dice = ShortTermIndexTests.Dice(seed: 25)
            let pieces = ["ka", "Zan", "zi", "bar", "MO", "ri", "é", "京", " ", " ", " ", ", ", ".", "\n", "\t", "  ", "5", "_", "%",
                          "\u{212A}", "\u{17F}", "S", "\""]
            func text(_ length: Int) -> String { (0..<length).map { _ in pieces[dice.next(pieces.count)] }.joined() }
            var texts: [String] = []
            for index in 0..<150 {
                let visibility: Visibility = index % 7 == 0 ? .private : (index % 11 == 0 ? .unlisted : .public)
                let body = text(40)
                texts.append(body)
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: text(3), body: body, visibility: visibility)
            }
            var terms: [String] = []
            while terms.count < 100 {
                let source = Array(texts[dice.next(texts.count)])
                let start = dice.next(source.count - 12)
                let term = String(source[start..<start + 3 + dice.next(9)]).trimmingCharacters(in: .whitespacesAndNewlines)
                if term.count >= 3 { terms.append(term) }
            }
            terms += (0..<40).map { _ in text(2 + dice.next(3)) }.filter { $0.count >= 3 }
            var narrowedCount = 0
            for term in terms {
                if try narrowing(store, term) != nil { narrowedCount += 1 }
                for viewer in [nil, alice.id] {
                    for order in [EntryOrder.newest, .relevance] {
                        let narrowed = try ids(store, term, viewerID: viewer, order: order)
                        #expect(narrowed == (try ids(store, term, viewerID: viewer, order: order, narrowed: false)), "\(term.debugDescription)")
                    }
                }
            }
            // Enough are narrowed for the comparison to say something (23 of 133 with this
            // seed: most pieces hold a character outside ASCII, or a tab or a line break).
            #expect(narrowedCount > terms.count / 8, "\(narrowedCount) of \(terms.count) narrowed")
        }
    }

    @Test func narrowedTermsFollowEditsAndDeletes() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "Trip", body: "off to Zanzibar")
            #expect(try ids(store, "zanzibar") == [entry.id])
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(body: "off to the marmalade river"))
            #expect(try ids(store, "zanzibar") == [])
            #expect(try ids(store, "marmalade river") == [entry.id])
            #expect(try narrowing(store, "marmalade river") != nil)
            try store.deleteEntry(id: entry.id, userID: alice.id)
            #expect(try ids(store, "marmalade river") == [])
            // The vocabulary keeps the chunk; the index no longer has the entry.
            #expect(try narrowing(store, "marmalade")?.condition.sqlite.sql == SQLiteEntryDialect.noRow)
        }
    }

    /// An offline replica drops the chunk index: a search then narrows nothing, and finds the
    /// same, before and after entries are written without the index.
    @Test func withoutTheChunkIndexNothingIsNarrowed() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try store.createEntry(userID: alice.id, diaryID: nil, title: "Trip", body: "off to Zanzibar")
            #expect(try narrowing(store, "zanzibar") != nil)
            try store.write(.operation("replica")) { db in try SQLiteDiaryStore.withoutChunkIndex(db) }
            #expect(try narrowing(store, "zanzibar") == nil)
            let second = try store.createEntry(userID: alice.id, diaryID: nil, title: "Again", body: "zanzibar river")
            #expect(try ids(store, "zanzibar") == [second.id, first.id] && ids(store, "zanzibar river") == [second.id])
            #expect(try store.read(.operation("vocabulary")) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM entry_vocabulary") } == 0)
        }
    }

    /// A word in more entries than `mostNarrowedEntries`, or in more chunks than
    /// `mostChunksPerPart`, is searched by its trigrams, and found the same; with tags on
    /// fewer entries together than that, the tags lead its count, as they do beside short terms
    /// in more entries than they are.
    @Test func commonWordsAreNotNarrowed() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.createDiary(ownerID: alice.id, title: "many")
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let count = SQLiteDiaryStore.mostNarrowedEntries + 10
            try store.insertEntries((0..<count).map { index in
                let rare = index % 500 == 0 ? " kyoto" : ""
                // Terms the chunks do not look up (not ASCII): one in half of the entries, one in 21.
                let japanese = (index % 2 == 0 ? " 雨でした" : "") + (index % 1000 == 3 ? " 京都市" : "")
                return SeedEntry(
                    diaryID: diary.id, title: "day \(index)", body: "the weather\(rare) w\(index % 300)xyz\(japanese)",
                    created: start + Double(index),
                    tags: index % 500 == 1 ? ["every", "rare"] : index % 10 == 2 ? ["every", "some"] : ["every"]
                )
            })
            #expect(try narrowing(store, "weather") == nil && narrowing(store, "the weather") == nil)
            // "w", a number and "xyz": 300 chunks hold "xyz", past the limit.
            #expect(try store.read(.operation("chunks")) { db in try SQLiteDiaryStore.chunks(holding: "xyz", .inside, db) } == nil)
            #expect(try narrowing(store, "xyz") == nil)
            #expect(try narrowing(store, "kyoto")?.holdsTerm == true)
            for term in ["weather", "the weather", "kyoto", "weather kyoto", "xyz"] {
                for order in [EntryOrder.newest, .relevance] {
                    #expect(try ids(store, term, order: order) == ids(store, term, order: order, narrowed: false), "\(term)")
                }
            }
            #expect(try ids(store, "weather kyoto").count == (count + 499) / 500)
            func tagLeads(_ words: String, _ tags: [String]) throws -> Bool {
                let query = EntryQuery(filter: EntryFilter(query: words, tags: tags))
                return try store.read(.operation("chunks")) { db in
                    try SQLiteDiaryStore.countLeader(db, query, SQLiteDiaryStore.chunkLookUp(db, terms: query.filter.terms)) == .firstTag
                }
            }
            // The tags lead a count, and only when they are on fewer entries together (by their
            // kept sizes) than the words: `every` alone is not, `every` with `rare` is.
            #expect(try tagLeads("weather", ["rare"]) && tagLeads("weather", ["rare", "every"]) && tagLeads("weather", ["every", "rare"]))
            #expect(try !tagLeads("weather", ["every"]) && !tagLeads("weather", []))
            #expect(try !tagLeads("weather kyoto", ["rare"]))
            // Beside a term the chunks do not look up, in too many chunks ("xyz") or not ASCII, the
            // tag leads when the term's trigram matches are as many as the tag's entries or more.
            #expect(try tagLeads("weather xyz", ["rare"]) && tagLeads("雨でした", ["rare"]) && tagLeads("weather 雨でした", ["rare"]))
            #expect(try !tagLeads("京都市", ["rare"]) && !tagLeads("雨でした 京都市", ["rare"]) && !tagLeads("雨でした", ["every"]))
            // So it does beside terms too short for the trigrams alone, by their grams' matches.
            #expect(try tagLeads("ay", ["rare"]) && tagLeads("雨で", ["rare"]) && tagLeads("d", ["rare"]))
            #expect(try !tagLeads("京都", ["rare"]) && !tagLeads("雨で 京都", ["rare"]) && !tagLeads("ay", ["every"]))
            for words in ["weather", "the weather", "weather xyz", "weather kyoto", "雨でした", "京都市 weather", "ay", "1x", "雨で"] {
                for order in [EntryOrder.newest, .relevance] {
                    for tags in [["rare"], ["every"], ["rare", "every"], ["every", "rare"]] {
                        let filter = EntryFilter(query: words, order: order, tags: tags)
                        let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter)
                        let led = try store.entries(query, narrowedByChunks: true).page
                        let plain = try store.entries(query, narrowedByChunks: false).page
                        #expect(led.entries.map(\.id) == plain.entries.map(\.id) && led.total == plain.total, "\(words) \(tags)")
                    }
                }
            }
            // A date range on fewer entries than the bound leads the count as such a tag does
            // (the smaller of the two), unless a narrowed word's few entries do; found the same.
            func leader(_ words: String, _ since: Double?, _ until: Double?, tags: [String] = []) throws -> CountLeader? {
                let filter = EntryFilter(query: words, since: since.map { start + $0 }, until: until.map { start + $0 }, tags: tags)
                let query = EntryQuery(filter: filter)
                return try store.read(.operation("chunks")) { db in
                    try SQLiteDiaryStore.countLeader(db, query, SQLiteDiaryStore.chunkLookUp(db, terms: query.filter.terms))
                }
            }
            #expect(try leader("weather", 100, 400) == .dateRange && leader("雨でした", nil, 400) == .dateRange && leader("ay", 100, 400) == .dateRange)
            #expect(try leader("weather", 5, nil) == nil && leader("weather kyoto", 100, 400) == nil && leader("京都市", 100, 400) == nil)
            #expect(try leader("weather", 100, 400, tags: ["every"]) == .dateRange && leader("weather", 100, 19_000, tags: ["rare"]) == .firstTag)
            // Without terms, the smaller of the range and a tag under the bound leads a list of tags.
            #expect(try leader("", 100, 400, tags: ["every"]) == .dateRange && leader("", 100, 400, tags: ["rare"]) == .firstTag)
            #expect(try leader("", 100, 19_000, tags: ["rare"]) == .firstTag && leader("", 5, nil, tags: ["every"]) == nil && leader("", 100, 400) == nil)
            // A page of a tag that leads (on 2,001 entries) walks the tag's rows, at any depth: the
            // same page as the walk of every entry's, newest first, where words are asked.
            for words in ["", "weather", "雨でした"] {
                for page in [3, 55, 60] {
                    let filter = EntryFilter(query: words, order: .newest, tags: ["some"])
                    let query = EntryQuery(page: PageRequest(page: page, perPage: 20), filter: filter)
                    let sql = try store.read(.operation("plan")) { db in try SQLiteDiaryStore.listSQL(db, query, SQLiteDiaryStore.chunkLookUp(db, terms: filter.terms)) }
                    #expect(sql.reading(totalIsEstimate: true).page.rendered { _ in "?" }.sql.contains(words.isEmpty ? "FROM entry_tags e WHERE" : "FROM entry_tags t JOIN entries e"), "\(words) \(page)")
                    let led = try store.entries(query, narrowedByChunks: true).page
                    let plain = try store.entries(query, narrowedByChunks: false).page
                    #expect(led.entries.map(\.id) == plain.entries.map(\.id) && led.entries.count == 20, "\(words) page \(page)")
                }
            }
            // After a date, a range too long to lead has the terms' rows read highest id first
            // (`matchingRowsNewestFirst`), for anyone and for the owner: the 20 of 21 entries
            // holding 京都市 after the first five seconds.
            let after = (0..<20).map { "day \(20_003 - $0 * 1_000)" }
            for words in ["京都市", "weather 京都市"] {
                for viewerID in [nil, alice.id] {
                    let filter = EntryFilter(query: words, order: .newest, since: start + 5)
                    let page = try store.entries(EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter, viewerID: viewerID)).page
                    #expect(page.entries.map(\.title) == after && page.total == 20 && !page.totalIsEstimate, "\(words)")
                }
            }
            for words in ["weather", "weather xyz", "雨でした", "ay", "the weather", ""] {
                for order in [EntryOrder.newest, .relevance] {
                    for tags in [[], ["rare"], ["every"]] {
                        let filter = EntryFilter(query: words, order: order, since: start + 100, until: start + 2_600, tags: tags)
                        let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter)
                        let led = try store.entries(query, narrowedByChunks: true).page
                        let plain = try store.entries(query, narrowedByChunks: false).page
                        #expect(led.entries.map(\.id) == plain.entries.map(\.id) && led.total == plain.total, "\(words) \(tags) in a range")
                    }
                }
            }
        }
    }

    /// A word the chunks find in more entries than they narrow weighs by its public entries
    /// alone, counted where they are few enough: ranked without FTS5, a search of it beside a
    /// rare word is in FTS5's order, whoever asks, however many private entries hold it.
    @Test func aCommonWordWeighsByItsPublicEntries() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.createDiary(ownerID: alice.id, title: "many")
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            // "weather" in a quarter of 10,000 public entries and in 18,000 private ones; "kyoto" in
            // every fiftieth public one, with "weather" 1 to 3 times in half of those.
            try store.insertEntries((0..<10_000).map { index in
                let times = index % 4 == 0 ? 1 + (index / 100) % 3 : 0
                let kyoto = index % 50 == 0 ? " kyoto" : ""
                let body = "day" + kyoto + String(repeating: " weather", count: times) + String(repeating: " filler", count: (index / 50) % 7)
                return SeedEntry(diaryID: diary.id, title: "entry \(index)", body: body, created: start + Double(index))
            })
            try store.executeOnWriter("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 18000)
                INSERT INTO entries (diary_id, title, body, created, updated, visibility)
                SELECT \(diary.id), 'private ' || i, 'the weather', '2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z', 'private' FROM n
                """)
            let lookUp = try store.read(.operation("chunks")) { db in try SQLiteDiaryStore.chunkLookUp(db, terms: ["weather", "kyoto"]) }
            #expect(lookUp.commonChunks["weather"] != nil && lookUp.narrowings["kyoto"] != nil)
            for words in ["weather kyoto", "kyoto weather"] {
                for viewer in [nil, alice.id] {
                    let filter = EntryFilter(query: words, order: .relevance)
                    let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter, viewerID: viewer)
                    let ranked = try store.entries(query, narrowedByChunks: true).page
                    let plain = try store.entries(query, narrowedByChunks: false).page
                    #expect(ranked.entries.map(\.id) == plain.entries.map(\.id) && ranked.total == 100, "\(words)")
                }
            }
        }
    }

    /// The chunks of a text as the index and the vocabulary take them: cut at spaces, tabs, CRs
    /// and LFs only, folded as the trigram tokenizer folds into ASCII, those without an ASCII
    /// letter or digit left out, each once.
    @Test func chunksAreCutAndFolded() {
        #expect(EntryChunks.jsonArray(of: "The  RIVER\tbridge.\r\nthe river 京都 \u{212A}ite ſun \"q\\\" é-1 -- 京x") == #"""
            ["the","river","bridge.","kite","sun","\"q\\\"","é-1","京x"]
            """#.trimmingCharacters(in: .whitespaces))
        #expect(EntryChunks.jsonArray(of: "") == "[]" && EntryChunks.jsonArray(of: "   ") == "[]")
        // The index takes the buckets of neighbouring chunks too, each once, none across a
        // chunk without a letter or digit.
        var text = "The river  BRIDGE, the river -- sea"
        let tokens = text.withUTF8 { bytes in
            var tokens: [String] = []
            _ = EntryChunks.forEach(in: bytes, pairs: true) { token, _ in
                tokens.append(String(decoding: token, as: UTF8.self))
                return 0  // SQLITE_OK
            }
            return tokens
        }
        let pair = { (first: String, second: String) in
            String(decoding: EntryChunks.pairToken(EntryChunks.pairBucket(Array(first.utf8), Array(second.utf8))), as: UTF8.self)
        }
        #expect(tokens == ["the", pair("the", "river"), "river", pair("river", "bridge,"), "bridge,", pair("bridge,", "the"), "sea"])
        #expect(pair("the", "river").utf8.count == 6 && pair("the", "river").hasPrefix(" "))
        #expect(EntryChunks.jsonArray(of: "a\u{1}b") == #"["a\u0001b"]"#)
    }

    /// A file of schema v7, with entries, gets its chunk index and vocabulary when today's
    /// store opens it, and they narrow at once.
    @Test func aVersion7FileGetsItsChunkIndex() throws {
        try withTemporaryDirectory { directory in
            do {
                try SQLiteDiaryStore.createParentDirectory(of: directory.databasePath)
                var configuration = Configuration()
                configuration.registerDiaryTokenizers()
                let queue = try DatabaseQueue(path: directory.databasePath, configuration: configuration)
                try SQLiteDiaryStore.migrator.migrate(queue, upTo: "v7")
                try queue.write { db in
                    try db.execute(sql: """
                        INSERT INTO users (name, token_hash, created) VALUES ('alice', ?, '2026-01-01T00:00:00Z');
                        INSERT INTO diaries (user_id, title, created, updated) VALUES (1, 'Old', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
                        INSERT INTO entries (diary_id, title, body, created, updated, visibility)
                            VALUES (1, 'Zanzibar', 'the river bridge', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'public'),
                                   (1, 'secret', 'zanzibar', '2026-01-03T00:00:00Z', '2026-01-03T00:00:00Z', 'private');
                        """, arguments: [String(repeating: "a", count: 64)])
                }
                try queue.close()
            }
            let store = try SQLiteDiaryStore(path: directory.databasePath)
            #expect(try narrowing(store, "zanzibar")?.holdsTerm == true && narrowing(store, "river bridge") != nil)
            #expect(try ids(store, "zanzibar") == [1] && ids(store, "zanzibar", viewerID: 1) == [2, 1])
            #expect(try ids(store, "river bridge") == [1])
            try store.close()
        }
    }
}

/// The relevance a narrowed term's matches are ordered by without FTS5 (`relevanceOrder`) is
/// bm25() over `entries_fts`, to the bit: for random texts of repeated syllables (so that a term
/// is in some rows several times, overlapping too), both signs the trigram tokenizer folds
/// into ASCII, and texts of every length.
struct RelevanceTests {
    @Test func theScoresAreFTS5s() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            var dice = ShortTermIndexTests.Dice(seed: 7)
            let pieces = ["ka", "kak", "Ka", "\u{212A}a", "a", "s", "\u{17F}", " ", "é", "京"]
            func text(_ length: Int) -> String { (0..<length).map { _ in pieces[dice.next(pieces.count)] }.joined() }
            for index in 0..<200 {
                // A rare word in a tenth of them, once or a few times, so that its weight is
                // not the floor bm25 gives a term in most rows.
                let rare = index % 10 == 0 ? String(repeating: " Zanzibar", count: 1 + dice.next(3)) : ""
                _ = try store.createEntry(
                    userID: alice.id, diaryID: nil, title: text(dice.next(4)), body: text(dice.next(60)) + rare,
                    visibility: index % 9 == 0 ? .private : .public
                )
            }
            var compared = 0
            for term in ["kak", "aka", "kaka", "ka ka", "aks", "a a", "asa", "kakak", "zanzibar", "ar zan", "bar", "ka京", "京ka", "a 京"] {
                try store.read(.operation("scores")) { db in
                    let totals = try #require(try FTS5Totals(db, table: "entries_fts"))
                    let match = SQLiteEntryDialect.ftsString(term)
                    let hits = try Int64.fetchOne(db, sql: "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?", arguments: [match]) ?? 0
                    let relevance = BM25(rows: totals.rows, tokens: totals.tokens, hits: [hits])
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT bm25(entries_fts), e.title, e.body, s.sz FROM entries_fts JOIN entries e ON e.entry_id = entries_fts.rowid
                        JOIN entries_fts_docsize s ON s.id = e.entry_id WHERE entries_fts MATCH ?
                        """, arguments: [match])
                    for row in rows {
                        let term = Array(term.utf8)
                        let frequency = SQLiteDiaryStore.occurrences(of: term, in: row[1]) + SQLiteDiaryStore.occurrences(of: term, in: row[2])
                        let length = try #require(FTS5Totals.sum(ofVarints: row[3]))
                        #expect(relevance.score(frequencies: [Double(frequency)], length: Double(length)) == row[0] as Double, "\(term)")
                        compared += 1
                    }
                }
            }
            #expect(compared > 300, "\(compared) scores compared")
            // A query of several phrases: each weighs by its own rows, in the query's order.
            compared = 0
            for terms in [["kak", "zanzibar"], ["zanzibar", "aka", "a a"], ["bar", "bar"], ["ka ka", "zanzibar", "kaka"], ["zanzibar", "ka京"]] {
                try store.read(.operation("scores")) { db in
                    let totals = try #require(try FTS5Totals(db, table: "entries_fts"))
                    let phrases = terms.map(SQLiteEntryDialect.ftsString)
                    let hits = try phrases.map { phrase in
                        try Int64.fetchOne(db, sql: "SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?", arguments: [phrase]) ?? 0
                    }
                    let relevance = BM25(rows: totals.rows, tokens: totals.tokens, hits: hits)
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT bm25(entries_fts), e.title, e.body, s.sz FROM entries_fts JOIN entries e ON e.entry_id = entries_fts.rowid
                        JOIN entries_fts_docsize s ON s.id = e.entry_id WHERE entries_fts MATCH ?
                        """, arguments: [phrases.joined(separator: " AND ")])
                    for row in rows {
                        let frequencies = terms.map { term in
                            Double(SQLiteDiaryStore.occurrences(of: Array(term.utf8), in: row[1]) + SQLiteDiaryStore.occurrences(of: Array(term.utf8), in: row[2]))
                        }
                        let length = try #require(FTS5Totals.sum(ofVarints: row[3]))
                        #expect(relevance.score(frequencies: frequencies, length: Double(length)) == row[0] as Double, "\(terms)")
                        compared += 1
                    }
                }
            }
            #expect(compared > 20, "\(compared) scores of several phrases compared")
        }
    }

    /// The order the store computes is bm25()'s, for terms holding letters that characters
    /// outside ASCII fold into (é from É, σ from Σ): each text's instances are counted as the
    /// tokenizer folds it (`TrigramFold`), not as the chunks do.
    @Test func termsWithLettersFoldedOutsideASCIIRankAsFTS5Does() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            var dice = ShortTermIndexTests.Dice(seed: 5)
            let pieces = ["caf", "é", "É", "CAF", " ", "zanzibar", "Zanzibar", "σ", "Σ", "ς", "x", "\u{212A}"]
            func text(_ length: Int) -> String { (0..<length).map { _ in pieces[dice.next(pieces.count)] }.joined() }
            for _ in 0..<200 {
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: text(dice.next(4)), body: text(dice.next(40)), visibility: .public)
            }
            var compared = 0
            for query in [["café"], ["CAFÉ"], ["zanzibar", "café"], ["éσx"], ["zanzibar", "ΣΣ"], ["caféé", "xσ\u{212A}"]] {
                try store.read(.operation("order")) { db in
                    let match = query.map(SQLiteEntryDialect.ftsString).joined(separator: " AND ")
                    let byFTS5 = try Int64.fetchAll(db, sql: "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY bm25(entries_fts), rowid DESC", arguments: [match])
                    let search = TermSearch(query, shortestIndexed: SQLiteEntryDialect.shortestIndexedTerm, shortTermsLead: false)
                    let order = try SQLiteDiaryStore.relevanceOrder(db, ids: byFTS5.shuffled(), search: search, commonChunks: [:])
                    #expect(order == byFTS5, "\(query)")
                    compared += byFTS5.count
                }
            }
            #expect(compared > 100, "\(compared) matches ordered")
        }
    }

    /// A phrase not counted weighs what bm25 gives one in half of the rows or more.
    @Test func anUncountedPhraseWeighsTheFloor() {
        let relevance = BM25(rows: 1000, tokens: 50_000, hits: [10, nil, 600])
        #expect(relevance.weights[1] == BM25.floorWeight && relevance.weights[2] == BM25.floorWeight)
        #expect(relevance.weights[0] == log(990.5 / 10.5))
    }
}
