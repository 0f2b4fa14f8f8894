import DiaryAPI
@testable import DiaryPostgresStore
import DiaryStore
import Foundation
import SeededRandom
import StoreTestSupport
import Testing

/// Terms of three characters or more that the chunk index (schema v9) narrows: a word, a piece
/// of one, a phrase across words. Through the chunks a search finds exactly what it finds
/// without them (the trigram indexes and LIKE), in the same order, as each viewer may list
/// them, and follows every write.
@Suite(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
struct PostgresChunkSearchTests {
    /// The ids `viewerID` finds for the phrase `term`, in `order`, with the chunks or without.
    func ids(
        _ store: PostgresDiaryStore, _ term: String, viewerID: Int64? = nil, order: EntryOrder = .newest, narrowed: Bool = true
    ) throws -> [Int64] {
        let filter = EntryFilter(query: "\"\(term)\"", order: order)
        let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter, viewerID: viewerID)
        let results = try store.entries(query, narrowedByChunks: narrowed)
        return results.page.entries.map(\.id)
    }

    /// How the store narrows `term` by its chunks, or nil when it searches as before.
    func narrowing(_ store: PostgresDiaryStore, _ term: String) throws -> ChunkNarrowing? {
        try store.read(.operation("chunks")) { session in
            try PostgresDiaryStore.chunkPlan(session, terms: [term]).narrowings[term]
        }
    }

    /// Whether the store narrows `term` by its chunks (else it searches as before, or, for a
    /// term too common to narrow, by its own check).
    func isNarrowed(_ store: PostgresDiaryStore, _ term: String) throws -> Bool {
        try narrowing(store, term).map { !$0.isCommon } ?? false
    }

    @Test func narrowedTermsFindWhatTheCheckFinds() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
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
            try post("kelvin", "\u{212A}ite flying, \u{212A}ITE")
            try post("accents", "café au lait, naïve")
            try post("escapes", "100%_sure and back\\slash")
            try post("mixed", "京都zanzibar旅\tand a tab")
            try post("rain", "Zanzibar: 雨でした。 river  bridge")
            try post("private", "zanzibar in secret", .private)
            try post("unlisted", "the river bridge, unlisted", .unlisted)
            let terms = [
                "zanzibar", "ZanZibar", "river bridge", "the river bridge", "river bridge at", "er bri", "kite", "KITE", "caf",
                "café au", "0%_s", "k\\s", "and a tab", "a tab", "zanzibar旅", "nowhere", "river  bridge", "bridge, across",
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
            #expect(try ids(store, "zanzibar", order: .newest).count == 4)
            #expect(try ids(store, "zanzibar", viewerID: alice.id).count == 5)
            // Beside a rare word, a term the chunks do not narrow is checked in its matches.
            for words in ["zanzibar 雨でした", "雨でした zanzibar", "zanzibar \"river  bridge\"", "雨でした nowhere"] {
                for viewer in [nil, alice.id] {
                    for order in [EntryOrder.newest, .relevance] {
                        let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: EntryFilter(query: words, order: order), viewerID: viewer)
                        let narrowed = try store.entries(query, narrowedByChunks: true).page
                        let plain = try store.entries(query, narrowedByChunks: false).page
                        #expect(narrowed.entries.map(\.id) == plain.entries.map(\.id) && narrowed.total == plain.total, "\(words)")
                    }
                }
            }
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "zanzibar 雨でした")), narrowedByChunks: true).page.total == 1)
            #expect(try ids(store, "river bridge").count == 2)
            #expect(try ids(store, "kite").count == 1)
            // Which terms the chunks narrow: those holding an ASCII letter or digit, with parts
            // joined by single spaces and no tab, CR or LF.
            for term in ["zanzibar", "river bridge", "the river bridge", "0%_s", "nowhere", "café au"] {
                #expect(try isNarrowed(store, term), "\(term)")
            }
            for term in ["京都旅", "river  bridge", "a\ttab", "river\nbridge"] {
                #expect(try !isNarrowed(store, term), "\(term)")
            }
        }
    }

    /// Random texts of a few syllables, punctuation, case and line breaks, searched for random
    /// pieces of themselves: the chunks change no answer, before the first ANALYZE (every chunk
    /// counts as rare, its matches read from the index and sorted) and after it (common ones left to the
    /// planner or not narrowed). Autovacuum is off for the table: its ANALYZE, at a moment
    /// the test does not choose, made how many pieces were narrowed vary from run to run.
    @Test func randomPiecesOfRandomTextsFindTheSameEntries() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            try PostgresDiaryStore.withAdminConnection(url, subject: "statistics", timeout: PostgresDiaryStore.maintenanceTimeout) { session in
                try session.execute("ALTER TABLE entries SET (autovacuum_enabled = false)")
            }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            var random = SplitMix64(seed: 25)
            let pieces = ["ka", "Zan", "zi", "bar", "MO", "ri", "é", "京", " ", " ", " ", ", ", ".", "\n", "\t", "  ", "5", "_", "%"]
            func text(_ length: Int) -> String {
                (0..<length).map { _ in pieces[random.next(pieces.count)] }.joined()
            }
            var texts: [String] = []
            for index in 0..<120 {
                let visibility: Visibility = index % 7 == 0 ? .private : (index % 11 == 0 ? .unlisted : .public)
                let body = text(40)
                texts.append(body)
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: text(3), body: body, visibility: visibility)
            }
            var terms: [String] = []
            while terms.count < 80 {
                let source = Array(texts[random.next(texts.count)])
                let start = random.next(source.count - 12)
                let term = String(source[start..<start + 3 + random.next(9)]).trimmingCharacters(in: .whitespacesAndNewlines)
                if term.count >= 3 { terms.append(term) }
            }
            /// How many of `terms` the chunks narrow, each term's answers compared.
            func compare() throws -> Int {
                var narrowedCount = 0
                for term in terms {
                    if try isNarrowed(store, term) { narrowedCount += 1 }
                    for viewer in [nil, alice.id] {
                        for order in [EntryOrder.newest, .relevance] {
                            let narrowed = try ids(store, term, viewerID: viewer, order: order)
                            #expect(narrowed == (try ids(store, term, viewerID: viewer, order: order, narrowed: false)), "\(term.debugDescription)")
                        }
                    }
                }
                return narrowedCount
            }
            // Many pieces are narrowed (34 of the 80 with this seed; `narrowedTermsFindWhatTheCheckFinds`
            // says which terms are), so that the comparison says something.
            let beforeStatistics = try compare()
            #expect(beforeStatistics > terms.count / 3, "\(beforeStatistics) of \(terms.count) narrowed")
            try PostgresDiaryStore.withAdminConnection(url, subject: "statistics", timeout: PostgresDiaryStore.maintenanceTimeout) { session in
                try session.execute("ANALYZE entries")
            }
            // Fewer, the common chunks' terms no longer (25 with this seed).
            let afterStatistics = try compare()
            #expect(afterStatistics > 0 && afterStatistics < beforeStatistics, "\(afterStatistics) of \(terms.count) narrowed")
            // The ranged chunk index (schema v10) cuts each text as the chunk index does.
            let differing = try store.read(.operation("ranged chunks")) { session in
                try session.one((Int).self, """
                    SELECT count(*)::bigint FROM entries
                    WHERE entry_ranged_chunks(entry_id, title, body) IS DISTINCT FROM ranged_chunks(entry_chunks(title, body), entry_id >> 16)
                    """)
            }
            #expect(differing == 0)
        }
    }

    @Test func narrowedTermsFollowEditsAndDeletes() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "Trip", body: "off to Zanzibar")
            #expect(try ids(store, "zanzibar") == [entry.id])
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(body: "off to the marmalade river"))
            #expect(try ids(store, "zanzibar") == [])
            #expect(try ids(store, "marmalade river") == [entry.id])
            #expect(try isNarrowed(store, "marmalade river"))
            try store.deleteEntry(id: entry.id, userID: alice.id)
            #expect(try ids(store, "marmalade river") == [])
        }
    }

    /// A word in most entries, by the planner's statistics, is left to the walk newest first,
    /// which stops after the count's bound, where the chunk index would hand over every entry
    /// holding it; one they list in fewer is narrowed and left to the planner; before any
    /// statistics, a term's matches are read from the index and sorted. Each finds the same
    /// entries either way.
    @Test func commonWordsAreNotNarrowed() throws {
        try withDatabase { url in
            // At the latest schema: a migration past it would analyze the table (v11).
            try writeOldDatabase(
                url, version: PostgresDiaryStore.schemaVersions.last!,
                body: "md5(i::text) || ' the weather' || CASE WHEN i % 500 = 0 THEN ', kyoto weather' ELSE '' END"
                    + " || CASE WHEN i % 20 = 0 THEN ' in autumn' ELSE '' END || CASE WHEN i % 8 = 0 THEN ' apples' ELSE '' END"
                    + " || CASE WHEN i % 3 = 0 THEN ' 雨でした' ELSE '' END || CASE WHEN i % 4 = 0 THEN ' Café' ELSE '' END"
                    + " || CASE WHEN i % 500 = 1 THEN ' 京都市' ELSE '' END"
            )
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            // No statistics yet: every chunk counts as rare, and its matches are read from the index.
            #expect(try narrowing(store, "weather")?.narrowing.sortsMatches == true)
            #expect(try narrowing(store, "the weather")?.narrowing.sortsMatches == true)
            // A term without chunks is left to the trigram indexes: the planner expects it nowhere.
            #expect(try narrowing(store, "雨でした") == nil)
            // A rare word's chunks hold it; a phrase's pairs of chunks need not.
            #expect(try narrowing(store, "weather")?.narrowing.holdsTerm == true && narrowing(store, "the weather")?.narrowing.holdsTerm == false)
            for term in ["weather", "the weather"] {
                #expect(try ids(store, term) == ids(store, term, narrowed: false), "\(term)")
            }
            try PostgresDiaryStore.withAdminConnection(url, subject: "statistics", timeout: PostgresDiaryStore.maintenanceTimeout) { session in
                try session.execute("ANALYZE entries")
            }
            #expect(try !isNarrowed(store, "weather") && !isNarrowed(store, "the weather"))
            // In an eighth of the entries, past `mostCommonShare`: walked as before.
            #expect(try !isNarrowed(store, "apples"))
            #expect(try isNarrowed(store, "kyoto") && isNarrowed(store, "kyoto weather"))
            // Listed, in a twentieth of the entries: narrowed, the plan left to the planner.
            #expect(try narrowing(store, "autumn")?.narrowing.sortsMatches == false)
            #expect(try narrowing(store, "in autumn")?.narrowing.sortsMatches == false)
            // Left to the planner, a word is checked in the text, which a walk does first.
            #expect(try narrowing(store, "autumn")?.narrowing.holdsTerm == false)
            for term in ["weather", "the weather", "kyoto", "kyoto weather", "autumn", "in autumn", "apples"] {
                #expect(try ids(store, term) == ids(store, term, narrowed: false), "\(term)")
            }
            // Without chunks that narrow it, a term the planner expects in more entries than
            // `mostCommonShare` is checked in each entry read, as a common word is: `雨でした`
            // (a third of the entries) and `café`, whose chunks are common but not ASCII. One it
            // expects in few (`京都市`, 4 entries) is left to the trigram indexes.
            for term in ["雨でした", "café", "CAFÉ"] {
                let common = try narrowing(store, term)
                #expect(common?.isCommon == true && common?.narrowing.holdsTerm == true && common?.narrowing.sortsMatches == false, "\(term)")
            }
            #expect(try narrowing(store, "京都市") == nil)
            for words in ["雨でした", "café", "café apples", "雨でした autumn", "京都市 雨でした", "京都市 entry", "café 雨でした kyoto"] {
                for order in [EntryOrder.newest, .relevance] {
                    let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: EntryFilter(query: words, order: order))
                    let narrowed = try store.entries(query, narrowedByChunks: true).page
                    let plain = try store.entries(query, narrowedByChunks: false).page
                    #expect(narrowed.entries.map(\.id) == plain.entries.map(\.id) && narrowed.total == plain.total, "\(words) \(order)")
                    #expect(!narrowed.entries.isEmpty, "\(words)")
                }
            }
            #expect(try ids(store, "kyoto weather").count == 4)
            #expect(try ids(store, "in autumn").count == 100, "a page of the 100 entries holding it")
        }
    }

    /// Two words each too common to narrow alone but rare together are counted through the
    /// chunk index at once, one range of ids at a time when every other term is common too,
    /// and a walk checks each entry for them (`probe`); a word in most entries is not read
    /// from the index so. A tag rarer than the words leads their count, unless it is on enough
    /// entries to be read with them, range by range. Each search finds the same entries either
    /// way.
    @Test func commonWordsRareTogetherAreCountedThroughTheIndex() throws {
        try withDatabase { url in
            try writeOldDatabase(
                url, version: 9,
                body: "md5(i::text) || ' the weather' || CASE WHEN i % 8 = 0 THEN ' Apples' ELSE '' END"
                    + " || CASE WHEN i % 5 = 0 THEN ' pears.' ELSE '' END"
            )
            try PostgresDiaryStore.withAdminConnection(url, subject: "ids") { session in
                // The entries spread over three ranges of ids of the ranged chunk index (65,536 each).
                try session.execute("UPDATE entries SET entry_id = entry_id + (entry_id % 3) * 65536")
                try session.execute("SELECT setval('entries_entry_id_seq', (SELECT max(entry_id) FROM entries))")
            }
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            try PostgresDiaryStore.withAdminConnection(url, subject: "statistics", timeout: PostgresDiaryStore.maintenanceTimeout) { session in
                // A tag on half of the entries, one on a hundredth of them, one on a thousandth.
                try session.execute("""
                    INSERT INTO entry_tags (entry_id, tag, created, visibility, diary_id) SELECT entry_id, 'half', created, visibility, diary_id FROM entries WHERE entry_id % 2 = 0
                    UNION ALL SELECT entry_id, 'rare', created, visibility, diary_id FROM entries WHERE entry_id % 100 = 0
                    UNION ALL SELECT entry_id, 'rarest', created, visibility, diary_id FROM entries WHERE entry_id % 1000 = 0
                    """)
                try session.execute("ANALYZE entries, entry_tags")
            }
            func plan(_ terms: [String], tags: [String] = []) throws -> ChunkPlan {
                try store.read(.operation("chunks")) { session in
                    try PostgresDiaryStore.chunkPlan(session, terms: terms, tags: tags)
                }
            }
            func narrowings(_ terms: [String]) throws -> [String: ChunkNarrowing] { try plan(terms).narrowings }
            // In an eighth and a fifth of the entries, a fortieth together.
            let together = try narrowings(["apples", "pears"])
            #expect(together["apples"]?.narrowing.probe != nil && together["pears"]?.narrowing.probe != nil)
            #expect(together.values.allSatisfy { $0.isCommon && $0.narrowing.holdsTerm && $0.narrowing.rows != nil })
            #expect(try plan(["apples", "pears"]).countLeader == nil)
            // Beside a rare word, whose check in each entry would be its chunks computed, the
            // chunk index counts them all at once.
            #expect(try narrowings(["apples", "pears", "1608"]).values.allSatisfy { $0.narrowing.rows == nil })
            // An eighth alone is few enough; "weather" is in every entry: its list read whole
            // would cost more than a walk.
            let alone = try narrowings(["apples", "weather"])
            #expect(alone["apples"]?.narrowing.probe != nil && alone["weather"]?.narrowing.probe == nil)
            #expect(alone["apples"]?.narrowing.rows != nil)
            #expect(try narrowings(["weather"]).values.allSatisfy { $0.narrowing.probe == nil })
            // The words lead a tag on more entries than they are in, not one on fewer: that one
            // leads, or, on half a percent of the entries or more, is read with them in each range.
            func rowsHoldATag(_ plan: ChunkPlan) -> Bool {
                plan.narrowings.values.contains { $0.narrowing.rows?.rendered { _ in "?" }.sql.contains("entry_tags") == true }
            }
            let half = try plan(["apples", "pears"], tags: ["half"])
            #expect(half.countLeader == .terms && !rowsHoldATag(half))
            let rare = try plan(["apples", "pears"], tags: ["rare"])
            #expect(rare.countLeader == .terms && rowsHoldATag(rare))
            let rarest = try plan(["apples", "pears"], tags: ["rarest"])
            #expect(rarest.countLeader == .firstTag && !rowsHoldATag(rarest))
            #expect(try plan(["apples", "pears"], tags: ["half", "rarest"]).countLeader == .terms)
            #expect(try !rowsHoldATag(plan(["apples", "pears", "1608"], tags: ["rare"])))
            // The walk newest first asks each entry's tag before its words, by a seek, never a
            // hash of every entry holding the tag, whatever memory the count's bitmap gets.
            let walk = try store.queryPlan(
                for: EntryQuery(filter: EntryFilter(query: "apples", order: .newest, tags: ["half"])), walking: true,
                settings: ["work_mem = '\(PostgresDiaryStore.bitmapMemory)'"]
            )
            #expect(walk.contains("SubPlan") && !walk.contains("hashed"), "\(walk)")
            for words in ["apples pears", "pears apples", "apples weather", "pears the", "apples", "apples pears 1608"] {
                for order in [EntryOrder.newest, .relevance] {
                    for tags in [[], ["half"], ["rare"], ["rarest"], ["rare", "half"]] {
                        let filter = EntryFilter(query: words, order: order, tags: tags)
                        let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter)
                        let narrowed = try store.entries(query, narrowedByChunks: true)
                        let plain = try store.entries(query, narrowedByChunks: false)
                        #expect(narrowed.page.entries.map(\.id) == plain.page.entries.map(\.id), "\(words) \(tags)")
                        #expect(narrowed.page.total == plain.page.total, "\(words) \(tags)")
                    }
                }
            }
            let query = EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: EntryFilter(query: "apples pears"))
            #expect(try store.entries(query, narrowedByChunks: true).page.total == 50)
            // A date range on fewer entries than the count's bound leads it, unless a rare word's
            // own entries do; each page is the one the trigram indexes find.
            let day = Date(timeIntervalSince1970: 1_767_225_600)
            func inRange(_ words: String, order: EntryOrder? = nil, tags: [String] = []) -> EntryQuery {
                let filter = EntryFilter(query: words, order: order, since: day + 3_600, until: day + 21_600, tags: tags)
                return EntryQuery(page: PageRequest(page: 1, perPage: 100), filter: filter)
            }
            func rangeLeads(_ words: String) throws -> Bool {
                try store.read(.operation("chunks")) { session in try PostgresDiaryStore.chunkPlan(for: inRange(words), session).countLeader } == .dateRange
            }
            #expect(try rangeLeads("weather") && rangeLeads("apples pears") && rangeLeads("pears the") && !rangeLeads("apples 1608"))
            for words in ["apples pears", "weather", "pears the", "apples 1608"] {
                for order in [EntryOrder.newest, .relevance] {
                    for tags in [[], ["rare"]] {
                        let narrowed = try store.entries(inRange(words, order: order, tags: tags), narrowedByChunks: true).page
                        let plain = try store.entries(inRange(words, order: order, tags: tags), narrowedByChunks: false).page
                        #expect(narrowed.entries.map(\.id) == plain.entries.map(\.id) && narrowed.total == plain.total, "\(words) \(tags)")
                        #expect(!narrowed.entries.isEmpty || words == "apples 1608" || !tags.isEmpty, "\(words) \(tags)")
                    }
                }
            }
        }
    }

    /// Past the count's bound, a rare word's newest-first page reads the newest id ranges of
    /// the ranged chunk index until they hold the page, where no older range holds a newer
    /// entry; where one does, it sorts every match. Either way, each page, offset or cursor,
    /// is the one the trigram indexes find, for anyone and for the owner.
    @Test func aRareWordsPageReadsTheNewestRangesFirst() throws {
        try withDatabase { url in
            // In four fifths of the 2,000 entries: past the count's bound; 雨でした in nine tenths,
            // a term the chunks do not narrow (not ASCII), which is checked in each match. Written
            // at the latest schema: a migration past it would analyze the table (v11).
            try writeOldDatabase(
                url, version: PostgresDiaryStore.schemaVersions.last!,
                body: "md5(i::text) || CASE WHEN i % 5 = 0 THEN '' ELSE ' kiwis' END || CASE WHEN i % 10 = 3 THEN '' ELSE ' 雨でした' END"
            )
            try PostgresDiaryStore.withAdminConnection(url, subject: "ids") { session in
                // A third of the entries in each of three ranges of ids, oldest lowest.
                try session.execute("UPDATE entries SET entry_id = entry_id + ((entry_id - 1) * 3 / 2000) * 65536")
                try session.execute("SELECT setval('entries_entry_id_seq', (SELECT max(entry_id) FROM entries))")
                try session.execute("UPDATE entries SET visibility = 'private' WHERE entry_id % 7 = 0")
                try session.execute("INSERT INTO entry_tags (entry_id, tag, created, visibility, diary_id) SELECT entry_id, 'half', created, visibility, diary_id FROM entries WHERE entry_id % 2 = 0")
                // Without statistics, which autovacuum would gather after the updates, every word is rare.
                try session.execute("ALTER TABLE entries SET (autovacuum_enabled = false)")
            }
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            func compare(_ filter: EntryFilter, viewerID: Int64?, _ label: String) throws {
                func readsRanges(_ query: EntryQuery) throws -> Bool {
                    let plan = try store.read(.operation("chunks")) { session in try PostgresDiaryStore.chunkPlan(for: query, session) }
                    return plan.listSQL(query).reading(totalIsEstimate: true).page.rendered { "$\($0)" }.sql.contains("entry_ranged_chunks")
                }
                // Past `mostRangedReach` rows, every match is sorted; beside "entry", a word the
                // index finds, too.
                let words = filter.query ?? ""
                let deep = EntryQuery(page: PageRequest(page: PostgresEntryDialect.mostRangedReach / 100 + 1, perPage: 100), filter: filter)
                #expect(try !readsRanges(deep), "\(label)")
                for page in [1, 4, 7] {
                    let query = EntryQuery(page: PageRequest(page: page, perPage: 100), filter: filter, viewerID: viewerID)
                    #expect(try readsRanges(query) == !words.contains("entry"), "\(label) page \(page)")
                    let narrowed = try store.entries(query, narrowedByChunks: true)
                    let plain = try store.entries(query, narrowedByChunks: false)
                    #expect(narrowed.page.entries.map(\.id) == plain.page.entries.map(\.id), "\(label) page \(page)")
                    #expect(!narrowed.page.entries.isEmpty && narrowed.page.total == plain.page.total, "\(label) page \(page)")
                }
                // Five pages by cursor.
                var position: EntryPosition?
                for page in 1...5 {
                    let query = EntryQuery(page: PageRequest(perPage: 40), filter: filter, position: position, viewerID: viewerID)
                    let narrowed = try store.entries(query, narrowedByChunks: true)
                    let plain = try store.entries(query, narrowedByChunks: false)
                    #expect(narrowed.page.entries.map(\.id) == plain.page.entries.map(\.id), "\(label) cursor page \(page)")
                    #expect(narrowed.next == plain.next && narrowed.next != nil, "\(label) cursor page \(page)")
                    position = narrowed.next
                }
            }
            func compareAll(_ label: String) throws {
                let cases: [(String, [String], EntryOrder, Int64?)] = [
                    ("kiwis", [], .newest, nil), ("kiwis", [], .relevance, 1), ("kiwis", ["half"], .newest, 1),
                    ("entry kiwis", ["half"], .newest, nil), ("kiwis entry", [], .relevance, nil),
                    ("kiwis 雨でした", [], .newest, nil), ("雨でした kiwis", ["half"], .newest, 1),
                ]
                for (words, tags, order, viewerID) in cases {
                    try compare(EntryFilter(query: words, order: order, tags: tags), viewerID: viewerID, "\(label): \(words) \(tags) \(order) \(viewerID ?? 0)")
                }
            }
            try compareAll("dates rising with ids")
            // An old entry dated after every other, and a new one before: the newest range
            // no longer holds the newest matches.
            try PostgresDiaryStore.withAdminConnection(url, subject: "dates") { session in
                try session.execute("UPDATE entries SET created = '2027-01-01' WHERE entry_id = 2")
                try session.execute("UPDATE entries SET created = '2025-01-01' WHERE entry_id = (SELECT max(entry_id) - 1 FROM entries)")
            }
            try compareAll("an old entry dated newest")
            let newest = EntryQuery(page: PageRequest(perPage: 10), filter: EntryFilter(query: "kiwis", order: .newest))
            #expect(try store.entries(newest, narrowedByChunks: true).page.entries.first?.id == 2)
        }
    }

    /// Past the count's bound, a page of common words counted range by range reads their rows
    /// range by range where the count's matches are sparse (`EntryListSQL.mostEntriesWalked`),
    /// and walks where they are dense, or where an older range holds a newer entry. Each page
    /// is the one the trigram indexes find, for anyone and for the owner.
    @Test func aDeepPageOfCommonWordsReadsTheirRanges() throws {
        try withDatabase { url in
            try writeOldDatabase(url, version: PostgresDiaryStore.schemaVersions.last!, body: "md5(i::text)")
            try PostgresDiaryStore.withAdminConnection(url, subject: "entries", timeout: PostgresDiaryStore.maintenanceTimeout) { session in
                // 14,000 more, ids 20 apart over five ranges of ids, dates rising with them:
                // `night` in a sixth (2,333), `coffee` in half, `doctor` in a thirteenth (1,076,
                // a word the statistics list but too rare to be common), and the tag `evening`
                // on 2,100 of night's entries, rarer than the word, so read with it in each range.
                try session.execute("SET statement_timeout = 0")
                try session.execute("""
                    INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility)
                    SELECT 10000 + i * 20, 1, 'entry ' || i, md5(i::text) || CASE WHEN i % 6 = 0 THEN ' night' ELSE '' END
                        || CASE WHEN i % 2 = 0 THEN ' coffee' ELSE '' END || CASE WHEN i % 13 = 0 THEN ' doctor' ELSE '' END,
                        t, t, CASE WHEN i % 50 = 7 THEN 'private' ELSE 'public' END
                    FROM generate_series(1, 14000) AS i, LATERAL (SELECT timestamptz '2026-03-01 00:00:00Z' + i * interval '1 minute' AS t) AS times
                    """)
                try session.execute("SELECT setval('entries_entry_id_seq', (SELECT max(entry_id) FROM entries))")
                try session.execute("""
                    INSERT INTO entry_tags (entry_id, tag, created, visibility, diary_id) SELECT entry_id, 'evening', created, visibility, diary_id FROM entries
                    WHERE entry_id > 10000 AND (entry_id - 10000) / 20 % 6 = 0 AND (entry_id - 10000) / 20 % 60 <> 0
                    """)
                try session.execute("ANALYZE entries, entry_tags")
            }
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            /// Whether the page of `query` reads ranges, once its count has run.
            func readsRanges(_ query: EntryQuery) throws -> Bool {
                try store.read(.operation("chunks")) { session in
                    let sql = try PostgresDiaryStore.chunkPlan(for: query, session).listSQL(query)
                    let ids = try session.query(#require(sql.matches).postgres).map { row in try row.decode(Int64.self) }
                    let page = sql.reading(matches: ids, dialect: PostgresEntryDialect.self).page
                    return sql.rangedWalkingPage != nil && page == sql.rangedWalkingPage
                }
            }
            func compareAll(_ label: String, ranges: Bool) throws {
                let searches = [("night", [String]()), ("night coffee", []), ("night", ["evening"]), ("coffee night", ["evening"]), ("doctor", [])]
                for (words, tags) in searches {
                    for (page, viewerID) in [(1, nil), (3, 1), (12, nil), (40, 1)] as [(Int, Int64?)] {
                        let filter = EntryFilter(query: words, order: .newest, tags: tags)
                        let query = EntryQuery(page: PageRequest(page: page, perPage: 20), filter: filter, viewerID: viewerID)
                        let narrowed = try store.entries(query, narrowedByChunks: true).page
                        let plain = try store.entries(query, narrowedByChunks: false).page
                        let at = "\(label): \(words) \(tags) page \(page) \(viewerID ?? 0)"
                        #expect(narrowed.entries.map(\.id) == plain.entries.map(\.id) && narrowed.total == plain.total, "\(at)")
                        #expect(narrowed.entries.count == 20 && narrowed.totalIsEstimate, "\(at)")
                        // By the count's ids, `night` is in one id of 120: page 1 (21 rows) walks
                        // about 2,500 entries, page 40 (801) 96,000, and the pages of the tag more.
                        if page == 40 || tags == ["evening"] && page > 1 { #expect(try readsRanges(query) == ranges, "\(at)") }
                        if page == 1 && words == "night" && tags.isEmpty { #expect(try !readsRanges(query), "\(at)") }
                    }
                }
            }
            // Doctor's chunks are listed: left to the planner, with its ranges for a deep page.
            let doctor = try narrowing(store, "doctor")?.narrowing
            #expect(doctor?.sortsMatches == false && doctor?.inRange != nil && doctor?.rows == nil)
            try compareAll("dates rising with ids", ranges: true)
            // A list of one tag on fewer than 20,000 entries is led by it (beside a second tag, the
            // planner counts); at any depth, a page walks the first tag's rows.
            for (tags, page, diaryID) in [(["evening"], 60, nil), (["evening"], 3, 1), (["evening", "none"], 60, nil)] as [([String], Int, Int64?)] {
                let filter = EntryFilter(tags: tags)
                let query = EntryQuery(diaryID: diaryID, page: PageRequest(page: page, perPage: 20), filter: filter, viewerID: page == 3 ? 1 : nil)
                let sql = try store.read(.operation("plan")) { session in try PostgresDiaryStore.chunkPlan(for: query, session).listSQL(query) }
                #expect(sql.reading(totalIsEstimate: true).page.rendered { _ in "?" }.sql.contains("FROM entry_tags e WHERE e.tag = ?"), "\(tags) \(page)")
                #expect(sql.search.countLeader == (tags.count == 1 && diaryID != nil ? .firstTag : nil), "\(tags)")
                let led = try store.entries(query, narrowedByChunks: true).page
                let plain = try store.entries(query, narrowedByChunks: false).page
                #expect(led.entries.map(\.id) == plain.entries.map(\.id) && led.total == plain.total, "\(tags) \(page)")
                #expect(led.entries.count == (tags.count == 1 ? 20 : 0), "\(tags) \(page)")
            }
            // A word in half of the entries, too common to be counted with the words' ranges, and
            // nothing else to lead: the rarer tag leads, and the page walks its rows.
            for (page, viewerID) in [(1, nil), (12, 1), (40, nil)] as [(Int, Int64?)] {
                let query = EntryQuery(page: PageRequest(page: page, perPage: 20), filter: EntryFilter(query: "coffee", order: .newest, tags: ["evening"]), viewerID: viewerID)
                let sql = try store.read(.operation("plan")) { session in try PostgresDiaryStore.chunkPlan(for: query, session).listSQL(query) }
                #expect(sql.search.countLeader == .firstTag && sql.reading(totalIsEstimate: true).page.rendered { _ in "?" }.sql.contains("FROM entry_tags t JOIN entries e"))
                let led = try store.entries(query, narrowedByChunks: true).page
                let plain = try store.entries(query, narrowedByChunks: false).page
                #expect(led.entries.map(\.id) == plain.entries.map(\.id) && led.total == plain.total && led.entries.count == 20, "coffee page \(page)")
            }
            // An old entry dated after every other: the newest range no longer holds the newest
            // matches, and the page walks.
            try PostgresDiaryStore.withAdminConnection(url, subject: "dates") { session in
                try session.execute("UPDATE entries SET created = '2027-01-01', body = body || ' night coffee doctor' WHERE entry_id = 10160")
            }
            try compareAll("an old entry dated newest", ranges: true)
            let newest = EntryQuery(page: PageRequest(perPage: 10), filter: EntryFilter(query: "night", order: .newest))
            #expect(try store.entries(newest, narrowedByChunks: true).page.entries.first?.id == 10160)
        }
    }

    /// A database of schema version 8, with entries in it, gets the chunk index and its
    /// vocabulary when a newer store opens it, and a rare word is found through it.
    @Test func aVersion8DatabaseGetsTheChunksOfItsEntries() throws {
        try withDatabase { url in
            try writeOldDatabase(
                url, version: 8, body: "CASE WHEN i = 777 THEN 'off to Zanzibar. The river bridge.' ELSE md5(i::text) || ' bar zan river' END"
            )
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            #expect(try store.appliedMigrations() == PostgresDiaryStore.schemaVersions)
            #expect(try store.consistencyCheck() == "ok")
            #expect(try ids(store, "zanzibar").count == 1)
            #expect(try ids(store, "river bridge").count == 1)
            let word = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "zanzibar")), settings: ["enable_seqscan = off"])
            #expect(word.contains("entries_chunks"), "\(word)")
            let phrase = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "\"river bridge\"")), settings: ["enable_seqscan = off"])
            #expect(phrase.contains("entries_chunk_pairs"), "\(phrase)")
            // Schema v10: the vocabulary's trigram index keeps no pending list for searches to read.
            let options = try store.read(.operation("index options")) { session in
                try session.one((String).self, "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'entry_vocabulary_trigrams'")
            }
            #expect(options == "fastupdate=off")
        }
    }
}
