import DiaryAPI
import DiaryStore
import StoreKernel
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import GRDB
import Testing

/// `entries_grams`, the index of one- and two-character terms, and the bounded count and
/// walk of common terms, on SQLite.
@Suite struct ShortTermIndexTests {
    /// The tokenizer's set of keys answers as a `Set` does: a table of 16 slots for 200 keys,
    /// so that most of them go past the probe limit to the overflow set, the key 0 included.
    @Test func theKeysSeenAreASet() {
        var random = Dice(seed: 27)
        let keys = (0..<400).map { _ in UInt64(random.next(200)) }
        CharacterGramTokenizer.KeysSeen.withCapacity(8) { seen in
            var expected = Set<UInt64>()
            for key in keys {
                #expect(seen.insert(key) == expected.insert(key).inserted, "key \(key)")
            }
            #expect(!seen.overflow.isEmpty)
        }
    }

    /// The index finds exactly what the scan it replaced found: every entry whose
    /// `lower(title || ' ' || body)` (ASCII letters folded) holds the term, for every term of one
    /// or two scalars of text mixing cases, scripts, accents and emoji.
    @Test func theIndexFindsWhatTheScanFound() throws {
        try withStore { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let alphabet = Array("aAbZz 京都紅葉雨でしé\u{301}😀.")
            var random = Dice(seed: 25)
            var texts: [String] = []
            for _ in 0..<40 {
                let title = String((0..<1 + random.next(4)).map { _ in alphabet[random.next(alphabet.count)] })
                let body = String((0..<random.next(12)).map { _ in alphabet[random.next(alphabet.count)] })
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: title, body: body)
                texts.append(title + " " + body)
                clock.advance(seconds: 60)
            }
            let scalars = Set(alphabet.flatMap(\.unicodeScalars)).map(String.init)
            let terms = scalars + scalars.flatMap { first in scalars.map { first + $0 } }
            // (A term the query language reads otherwise, such as a lone combining accent
            // after nothing, is not a one-term search.)
            for term in terms where EntryFilter(query: term).terms == [term] {
                let found = try store.entries(EntryQuery(page: newestFirstPage, filter: EntryFilter(query: term), viewerID: alice.id)).page
                let expected = texts.indices.reversed().filter { Self.asciiLowered(texts[$0]).contains(Self.asciiLowered(term)) }
                #expect(found.entries.map { Int($0.id) - 1 } == expected, "\(term)")
            }
        }
    }

    /// The same texts at every run: a linear congruential sequence (Knuth's MMIX constants).
    struct Dice {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// `lower()` as SQLite has it, on scalars: only A-Z fold. (`contains` on the scalar views,
    /// as `instr` compares, not on Characters, which would not find an accent on its own.)
    static func asciiLowered(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }
    }

    /// 30 more entries than a count counts (`EntryPage.countedMatches`), "day 0" to "day N",
    /// a second apart, each with `body(index)`, in alice's one diary: (how many, alice's id).
    static func entriesPastTheBound(_ store: SQLiteDiaryStore, body: (Int) -> String) throws -> (count: Int, aliceID: Int64) {
        let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
        let diary = try store.createDiary(ownerID: alice.id, title: "many")
        let count = EntryPage.countedMatches + 30
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try store.insertEntries((0..<count).map { index in
            SeedEntry(diaryID: diary.id, title: "day \(index)", body: body(index), created: start + Double(index))
        })
        return (count, alice.id)
    }

    /// Past `EntryPage.countedMatches` matches, a search says its total is an estimate; pages
    /// still go on newest first to the last match, and a next page is there while rows are.
    @Test func aCommonTermsTotalIsAnEstimateAndItsPagesGoOn() throws {
        try withStore { store, _ in
            let (count, _) = try Self.entriesPastTheBound(store) { index in index == 7 ? "coffee zz rare" : "coffee zz" }
            for query in ["coffee", "zz", "z", "coffee zz"] {
                for order in [EntryOrder.newest, .relevance] {
                    let page = try store.entries(EntryQuery(filter: EntryFilter(query: query, order: order))).page
                    #expect(page.total == EntryPage.countedMatches && page.totalIsEstimate, "\(query) \(order)")
                    #expect(page.entries.count == 20 && page.nextPage == 2)
                    if order == .newest || query.count < 3 {
                        #expect(page.entries.first?.title == "day \(count - 1)")
                    }
                }
            }
            let rare = try store.entries(EntryQuery(filter: EntryFilter(query: "rare"))).page
            #expect(rare.total == 1 && !rare.totalIsEstimate && rare.entries.map(\.title) == ["day 7"])
            // The page past the bound (its first entry is the bound's + 1) and the last one, of
            // 10 entries, newest first.
            let newest = EntryFilter(query: "coffee", order: .newest)
            let pastBound = EntryPage.countedMatches / 20 + 1
            let deep = try store.entries(EntryQuery(page: PageRequest(page: pastBound, perPage: 20), filter: newest)).page
            #expect(deep.entries.first?.title == "day 29" && deep.nextPage == pastBound + 1 && deep.totalIsEstimate)
            let last = try store.entries(EntryQuery(page: PageRequest(page: pastBound + 1, perPage: 20), filter: newest)).page
            #expect(last.entries.map(\.title) == (0..<10).reversed().map { "day \($0)" } && last.nextPage == nil)
            // A list without terms keeps its exact total.
            let all = try store.entries(EntryQuery(filter: EntryFilter(tags: []))).page
            #expect(all.total == count && !all.totalIsEstimate)
        }
    }

    /// A walk checks a term in the entry's text first and probes the trigram index only when
    /// the text does not hold it with ASCII letters folded: letters only the tokenizer folds
    /// (ÉCOLE for école) are still found, so the walk finds what the index finds.
    @Test func aWalkFindsWhatTheTrigramIndexFinds() throws {
        try withStore { store, _ in
            let (count, aliceID) = try Self.entriesPastTheBound(store) { index in
                "to the \(index % 3 == 0 ? "ÉCOLE" : index % 3 == 1 ? "École" : "école") again"
            }
            for viewerID in [nil, aliceID] {
                let page = try store.entries(EntryQuery(filter: EntryFilter(query: "école", order: .newest), viewerID: viewerID)).page
                #expect(page.totalIsEstimate)
                #expect(page.entries.map(\.title) == (count - 20..<count).reversed().map { "day \($0)" })
            }
        }
    }

    /// `TrigramFold.table`, read from the tokenizer, folds every code point as the trigram
    /// index does: each is indexed between two ASCII letters, and the middle character of its
    /// trigram (fts5vocab) compared. What `TrigramFold` knows without the table holds too: of
    /// the code points outside ASCII, exactly two fold into ASCII (KELVIN SIGN and LONG S, as
    /// `EntryChunks.fold` has it), and nothing folds into a caseless block but itself.
    @Test func theFoldReadFromTheTokenizerIsTheIndexs() throws {
        let table = try #require(TrigramFold.table)
        let indexed = try DatabaseQueue().write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'trigram');
                CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');
                WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1114111)
                INSERT INTO t(rowid, x) SELECT n, 'q' || char(n) || 'q' FROM c WHERE n NOT BETWEEN 55296 AND 57343;
                """)
            return try Row.fetchAll(db, sql: "SELECT doc, unicode(substr(term, 2, 1)) FROM v ORDER BY doc")
                .map { row in try (code: row.decode(UInt32.self, atIndex: 0), folded: row.decode(UInt32.self, atIndex: 1)) }
        }
        // Each code point one trigram of its own: none folds into two characters or none.
        #expect(indexed.count == 1_114_111 - 2048)
        let mismatches = indexed.filter { table.folded(Unicode.Scalar($0.code)!).value != $0.folded }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20).map { String($0.code, radix: 16) })")
        let intoASCII = indexed.filter { $0.code >= 128 && $0.folded < 128 }
        #expect(intoASCII.map(\.code) == [0x17F, 0x212A] && intoASCII.map(\.folded) == [0x73, 0x6B])
        let caseless = { (code: UInt32) in TrigramFold.caselessBlocks.contains { $0.contains(code) } }
        #expect(indexed.allSatisfy { !caseless($0.code) && !caseless($0.folded) || $0.code == $0.folded })
        for term in ["aKb", "aSb", "river", "雨でした", "京都 kiss", "ＡＢｃ", "ŉ", "école", "ÉCOLE", "ΣΑΣ σας", "İi", "京都é"] {
            #expect(TrigramFold.signs(foldedInto: term) == table.signs(foldedInto: term), "\(term)")
            #expect(TrigramFold.folded(term) == table.folded(term), "\(term)")
        }
        #expect(TrigramFold.signs(foldedInto: "京都 kiss") == ["\u{212A}", "\u{17F}"] && TrigramFold.signs(foldedInto: "雨でした") == [])
        #expect(TrigramFold.signs(foldedInto: "ÉCOLE") == ["É"] && table.folded("ÉCOLE \u{212A}") == "école k")
    }

    /// A walk checks an ASCII term in the text alone, except in entries holding a sign the
    /// tokenizer folds into one of its letters, which are probed: it finds "kiss" written with
    /// KELVIN SIGN or LONG S, as the index does.
    @Test func aWalkFindsTheSignsTheTokenizerFoldsIntoASCII() throws {
        try withStore { store, _ in
            let (count, aliceID) = try Self.entriesPastTheBound(store) { index in
                ["a \u{212A}ISS", "a ki\u{17F}s", "a KISS", "a kiss"][index % 4]
            }
            for viewerID in [nil, aliceID] {
                let page = try store.entries(EntryQuery(filter: EntryFilter(query: "kiss", order: .newest), viewerID: viewerID)).page
                #expect(page.totalIsEstimate)
                #expect(page.entries.map(\.title) == (count - 20..<count).reversed().map { "day \($0)" })
            }
            // Without k or s, an ASCII term's walk probes no index.
            let walk = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "river", order: .newest)), walking: true)
            #expect(!walk.contains { $0.contains("entries_fts") }, "\(walk)")
        }
    }

    /// The check a walk makes of each entry (`trigramProbe`) finds exactly the entries the
    /// trigram index finds, for terms of random texts of LIKE's special characters, both signs
    /// the tokenizer folds into ASCII, accents (a combining one too) and both cases: pieces of
    /// the texts, which some entries hold, and strings of the same characters, which most do not.
    @Test func theWalksCheckFindsWhatTheIndexFinds() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.createDiary(ownerID: alice.id, title: "mixed")
            let pieces = ["a", "K", "k", "\u{212A}", "s", "S", "\u{17F}", "%", "_", "\\", "\u{301}", "é", "É", " ", "Σ", "σ", "ς", "İ", "i", "ẞ", "ß"]
            var dice = Dice(seed: 11)
            func text(_ length: Int) -> String { (0..<length).map { _ in pieces[dice.next(pieces.count)] }.joined() }
            let texts = (0..<300).map { _ in text(12) }
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            try store.insertEntries(texts.enumerated().map { index, body in
                SeedEntry(diaryID: diary.id, title: "-", body: body, created: start + Double(index))
            })
            let inTexts = texts.prefix(150).map { text -> String in
                let scalars = Array(text.unicodeScalars)
                let length = 3 + dice.next(3), from = dice.next(scalars.count - length + 1)
                return String(String.UnicodeScalarView(scalars[from..<from + length]))
            }
            var found = 0
            for term in inTexts + (0..<150).map({ _ in text(3 + dice.next(2)) }) where term.count >= 3 {
                let byIndex: SQLFragment = "SELECT rowid FROM entries_fts WHERE entries_fts MATCH \(SQLiteEntryDialect.ftsString(term)) ORDER BY 1"
                let byCheck: SQLFragment = "SELECT e.entry_id FROM entries e WHERE \(SQLiteEntryDialect.trigramProbe(term, viewerID: nil)) ORDER BY 1"
                let (indexed, checked) = try store.read(.operation("compare")) { db in
                    let ids = { (query: SQLFragment) in try Int64.fetchAll(db, sql: query.sqlite.sql, arguments: query.sqlite.arguments) }
                    return try (ids(byIndex), ids(byCheck))
                }
                #expect(checked == indexed, "\(term.unicodeScalars.map { String($0.value, radix: 16) })")
                if !indexed.isEmpty { found += 1 }
            }
            #expect(found > 100, "the pieces are found")
        }
    }

    /// A short term in fewer entries than the bound leads a search that also holds a common
    /// long term: the entries holding both come newest first, counted exactly. Whether it
    /// leads is counted over what the viewer may list, so others get the same answer however
    /// many private entries of the owner hold the short term.
    @Test func aRareShortTermLeadsACommonLongOne() throws {
        try withStore { store, _ in
            let (count, aliceID) = try Self.entriesPastTheBound(store) { index in index % 100 == 7 ? "coffee zq" : "Coffee" }
            let both = (0..<count).reversed().filter { $0 % 100 == 7 }.map { "day \($0)" }
            func answer(_ order: EntryOrder, _ viewerID: Int64?) throws -> EntryPage {
                try store.entries(EntryQuery(filter: EntryFilter(query: "COFFEE zq", order: order), viewerID: viewerID)).page
            }
            // The short term's index drives the count and the page; the trigram index is
            // probed by id for the entries it finds, unless the text alone can tell (an
            // ASCII term without k or s, `TrigramFold.signs(foldedInto:)`).
            for counting in [true, false] {
                let plan = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "cafés zq")), count: counting)
                let grams = plan.firstIndex { $0.contains("SCAN entries_grams") }
                #expect(grams != nil && grams! < (plan.firstIndex { $0.contains("entries_fts") } ?? -1), "\(plan)")
                #expect(plan.contains("SCAN entries_fts VIRTUAL TABLE INDEX 0:=M2"), "\(plan)")
                let unprobed = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "coffee zq")), count: counting)
                #expect(unprobed.contains { $0.contains("SCAN entries_grams") }, "\(unprobed)")
                #expect(!unprobed.contains { $0.contains("entries_fts") }, "\(unprobed)")
            }
            var before: [EntryOrder: EntryPage] = [:]
            for order in [EntryOrder.newest, .relevance] {
                for viewerID in [nil, aliceID] {
                    let page = try answer(order, viewerID)
                    #expect(page.entries.map(\.title) == both && page.total == both.count && !page.totalIsEstimate, "\(order)")
                }
                before[order] = try answer(order, nil)
            }
            // Alice's private entries holding both terms, more than the bound: her own search
            // now walks, and nobody else's answer moves.
            let more = EntryPage.countedMatches + 1
            let diary = try store.createDiary(ownerID: aliceID, title: "secret")
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            try store.insertEntries((0..<more).map { SeedEntry(diaryID: diary.id, title: "hidden \($0)", body: "coffee zq", created: start + Double($0)) })
            try store.write(.operation("make private")) { db in
                try db.execute(sql: "UPDATE entries SET visibility = 'private' WHERE diary_id = ?", arguments: [diary.id])
            }
            for order in [EntryOrder.newest, .relevance] {
                #expect(try answer(order, nil) == before[order], "\(order)")
                let own = try answer(order, aliceID)
                #expect(own.totalIsEstimate && own.entries.first?.title == both.first, "\(order)")
            }
        }
    }

    /// A common term's newest-first page walks the ordered index and checks each entry (by id
    /// in the trigram index, or in its text for a short term): no sort of every match.
    @Test func aCommonTermsNewestPageWalksTheOrderedIndex() throws {
        try withStore { store, _ in
            for (query, viewerID) in [("coffee", nil), ("coffee", 1), ("zz", nil), ("zz coffee", 1 as Int64?)] {
                let filter = EntryFilter(query: query, order: .newest)
                let plan = try store.queryPlan(for: EntryQuery(filter: filter, viewerID: viewerID), walking: true)
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
                #expect(plan.contains { $0.contains("newest_first") }, "\(plan)")
            }
        }
    }

    /// A file of schema v2, with entries, gets `entries_grams` filled when today's store opens it.
    @Test func aVersion2FileGetsItsShortTermIndex() throws {
        try withTemporaryDirectory { directory in
            do {
                try SQLiteDiaryStore.createParentDirectory(of: directory.databasePath)
                let queue = try DatabaseQueue(path: directory.databasePath)
                try SQLiteDiaryStore.migrator.migrate(queue, upTo: "v2")
                try queue.write { db in
                    try db.execute(sql: """
                        INSERT INTO users (name, token_hash, created) VALUES ('alice', ?, '2026-01-01T00:00:00Z');
                        INSERT INTO diaries (user_id, title, created, updated) VALUES (1, 'Old', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
                        INSERT INTO entries (diary_id, title, body, created, updated, visibility)
                            VALUES (1, '京都', 'zz top', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', 'public'),
                                   (1, 'secret', '紅葉', '2026-01-03T00:00:00Z', '2026-01-03T00:00:00Z', 'private');
                        """, arguments: [String(repeating: "a", count: 64)])
                }
                try queue.close()
            }
            let store = try SQLiteDiaryStore(path: directory.databasePath)
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "京都"))).page.entries.map(\.title) == ["京都"])
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "ZZ"))).page.entries.map(\.title) == ["京都"])
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "紅葉"))).page.entries.isEmpty)
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "紅葉"), viewerID: 1)).page.entries.map(\.title) == ["secret"])
            let check = try DatabaseCheck.check(path: directory.databasePath)
            #expect(check.problems.isEmpty && check.summary?.schemaVersions == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11"], "\(check)")
            try store.close()
        }
    }
}
