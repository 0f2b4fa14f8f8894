import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

/// Search, date and tag filters, keyset cursors, tags, export and import on a real SQLite file.
@Suite struct SearchTests {
    /// A user with entries written one minute apart, in the order given.
    private func seed(_ store: any DiaryStore, _ clock: TestClock, _ entries: [(String, String, [String])]) throws -> User {
        let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
        for (title, body, tags) in entries {
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: title, body: body, tags: tags)
            clock.advance(seconds: 60)
        }
        return alice
    }

    private func titles(_ store: any DiaryStore, _ filter: EntryFilter, diaryID: Int64? = nil) throws -> [String] {
        try store.entries(EntryQuery(diaryID: diaryID, page: newestFirstPage, filter: filter)).page.entries.map(\.title)
    }

    private let corpus: [(String, String, [String])] = [
        ("Kyoto", "京都で紅葉を見た", ["travel", "japan"]),
        ("Rainy day", "Stayed in and read a book.", ["home"]),
        ("Tokyo", "東京の雨の日", ["travel", "japan"]),
        ("Garden", "A rainy afternoon; the day was long.", []),
    ]

    @Test(arguments: StoreFactory.all) func findsEnglishAndJapaneseSubstrings(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            _ = try seed(store, clock, corpus)
            #expect(try titles(store, EntryFilter(query: "京都")) == ["Kyoto"])          // 2 characters: the scan
            #expect(try titles(store, EntryFilter(query: "紅葉を")) == ["Kyoto"])        // 3: the trigram index
            #expect(try titles(store, EntryFilter(query: "kyo*", order: .newest)) == ["Tokyo", "Kyoto"])  // a substring, any case
            #expect(try titles(store, EntryFilter(query: "rainy", order: .newest)) == ["Garden", "Rainy day"])
            #expect(try titles(store, EntryFilter(query: "\"rainy day\"")) == ["Rainy day"])  // the phrase, not both words
            #expect(try titles(store, EntryFilter(query: "rainy day", order: .newest)) == ["Garden", "Rainy day"])
            #expect(try titles(store, EntryFilter(query: "雨 東京")) == ["Tokyo"])
            #expect(try titles(store, EntryFilter(query: "nothing-like-this")) == [])
            // Text that is FTS5 syntax is only ever a quoted string.
            #expect(try titles(store, EntryFilter(query: "AND OR NOT NEAR(")) == [])
        }
    }

    /// Case folding is what SQLite's store does, and so every store's: a term of 3 or more
    /// characters matches whatever the case of its letters, non-ASCII ones too (FTS5's trigram
    /// tokenizer folds them); a shorter one folds A-Z only (SQLite's lower()).
    @Test(arguments: StoreFactory.all) func caseFoldingDependsOnTheTermsLength(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            _ = try seed(store, clock, [("Ünïcødé", "ÉCOLE Straße", []), ("plain", "ABC def", [])])
            #expect(try titles(store, EntryFilter(query: "ünï")) == ["Ünïcødé"])
            #expect(try titles(store, EntryFilter(query: "école")) == ["Ünïcødé"])
            #expect(try titles(store, EntryFilter(query: "STRASSE")) == [], "no full case folding: ß is not ss")
            #expect(try titles(store, EntryFilter(query: "abc DEF", order: .newest)) == ["plain"])
            #expect(try titles(store, EntryFilter(query: "Éc")) == ["Ünïcødé"], "ASCII folded, É as written")
            #expect(try titles(store, EntryFilter(query: "éc")) == [], "a short term folds ASCII letters only")
            #expect(try titles(store, EntryFilter(query: "dé")) == ["Ünïcødé"])
        }
    }

    /// LIKE's and FTS5's special characters in a term are only text.
    @Test(arguments: StoreFactory.all) func specialCharactersInATermAreText(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            _ = try seed(store, clock, [
                ("percent", "a 100% sure thing", []), ("digits", "about 5000 of them", []), ("underscore", "snake_case names", []),
                ("backslash", #"C:\path\to"#, []),
            ])
            #expect(try titles(store, EntryFilter(query: "00%")) == ["percent"])
            #expect(try titles(store, EntryFilter(query: "0%")) == ["percent"])
            #expect(try titles(store, EntryFilter(query: "e_c")) == ["underscore"])
            #expect(try titles(store, EntryFilter(query: "s_")) == [])
            #expect(try titles(store, EntryFilter(query: #"\pa"#)) == ["backslash"])
            #expect(try titles(store, EntryFilter(query: #"\"#)) == ["backslash"])
            #expect(try titles(store, EntryFilter(query: "%")) == ["percent"])
            #expect(try titles(store, EntryFilter(query: "___")) == [])
            #expect(try titles(store, EntryFilter(query: "a\0b")) == [])
        }
    }

    @Test(arguments: StoreFactory.all) func marksTheMatchInASnippet(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            _ = try seed(store, clock, corpus + [("Long", String(repeating: "x", count: 100) + " the needle " + String(repeating: "y", count: 100), [])])
            let kyoto = try store.entries(EntryQuery(filter: EntryFilter(query: "紅葉"))).page.entries
            #expect(kyoto.map(\.snippet) == ["京都で<mark>紅葉</mark>を見た"])
            let long = try store.entries(EntryQuery(filter: EntryFilter(query: "needle"))).page.entries[0].snippet ?? ""
            #expect(long.hasPrefix("…") && long.hasSuffix("…") && long.contains("<mark>needle</mark>"), "\(long)")
            let titleOnly = try store.entries(EntryQuery(filter: EntryFilter(query: "Tokyo"))).page.entries[0].snippet
            #expect(titleOnly == "<mark>Tokyo</mark>")
            #expect(try store.entries(EntryQuery()).page.entries.allSatisfy { $0.snippet == nil })
        }
    }

    @Test(arguments: StoreFactory.all) func filtersByDateTagAndTheirCombination(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try seed(store, clock, corpus)
            let old = try store.createEntry(
                userID: alice.id, diaryID: nil, title: "Back then", body: "rainy", tags: ["travel"], created: RFC3339.date(from: "2026-11-01T12:00:00Z")
            )
            #expect(old.created == RFC3339.date(from: "2026-11-01T12:00:00Z") && old.updated == clock.now)
            let day = EntryFilter.date("2026-11-01", endOfDay: false)!, dayEnd = EntryFilter.date("2026-11-01", endOfDay: true)!
            #expect(try titles(store, EntryFilter(since: day, until: dayEnd)) == ["Back then"])
            #expect(try titles(store, EntryFilter(until: dayEnd)) == ["Back then"])
            #expect(try titles(store, EntryFilter(since: dayEnd)) == ["Garden", "Tokyo", "Rainy day", "Kyoto"])
            #expect(try titles(store, EntryFilter(tags: ["travel"])) == ["Tokyo", "Kyoto", "Back then"])
            #expect(try titles(store, EntryFilter(tags: ["travel", "japan"])) == ["Tokyo", "Kyoto"])
            #expect(try titles(store, EntryFilter(query: "rainy", order: .newest, tags: ["travel"])) == ["Back then"])
            #expect(try titles(store, EntryFilter(query: "東京", since: dayEnd, tags: ["japan"])) == ["Tokyo"])
            let diary = try store.diaries()[0].id
            #expect(try titles(store, EntryFilter(tags: ["home"]), diaryID: diary) == ["Rainy day"])
            let page = try store.entries(EntryQuery(page: PageRequest(page: 1, perPage: 1), filter: EntryFilter(tags: ["travel"]))).page
            #expect(page.total == 3 && page.entries.count == 1)
        }
    }

    @Test(arguments: StoreFactory.all) func keepsTagsNormalisedAndCounted(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try seed(store, clock, corpus)
            #expect(try store.tags() == [TagCount(name: "home", count: 1), TagCount(name: "japan", count: 2), TagCount(name: "travel", count: 2)])
            let kyoto = try store.entries(EntryQuery(filter: EntryFilter(query: "Kyoto"))).page.entries[0]
            #expect(kyoto.tags == ["japan", "travel"])
            let retagged = try store.updateEntry(id: kyoto.id, userID: alice.id, changes: EntryChanges(tags: ["autumn"]))
            #expect(retagged.tags == ["autumn"] && retagged.title == "Kyoto")
            #expect(try store.tags().map(\.name) == ["autumn", "home", "japan", "travel"])
            try store.deleteEntry(id: kyoto.id, userID: alice.id)
            #expect(try store.tags().map(\.name) == ["home", "japan", "travel"])
            // The index followed the delete.
            #expect(try titles(store, EntryFilter(query: "紅葉を")) == [])
        }
    }

    @Test(arguments: StoreFactory.all) func cursorsSeekWithoutShiftingWhenEntriesArrive(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try seed(store, clock, (1...7).map { ("entry \($0)", "", []) })
            var query = EntryQuery(page: PageRequest(page: 1, perPage: 3))
            let first = try store.entries(query)
            #expect(first.page.entries.map(\.title) == ["entry 7", "entry 6", "entry 5"])
            // Written between pages: newer than everything, so it must not shift the next page.
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "entry 8", body: "")
            query.position = first.next
            let second = try store.entries(query)
            #expect(second.page.entries.map(\.title) == ["entry 4", "entry 3", "entry 2"])
            query.position = second.next
            let last = try store.entries(query)
            #expect(last.page.entries.map(\.title) == ["entry 1"])
            #expect(last.next == nil)
            #expect(last.page.total == 8)
        }
    }

    @Test(arguments: StoreFactory.all) func relevanceCursorsCarryAnOffset(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            _ = try seed(store, clock, (1...5).map { ("walk \($0)", "a walk in the park", []) })
            var query = EntryQuery(page: PageRequest(page: 1, perPage: 2), filter: EntryFilter(query: "walk"))
            var seen: [String] = []
            while true {
                let results = try store.entries(query)
                seen += results.page.entries.map(\.title)
                guard let next = results.next else { break }
                query.position = next
            }
            #expect(seen.sorted() == (1...5).map { "walk \($0)" })
        }
    }

    /// The cursor query seeks on the index: no sort, no scan, whatever the depth.
    @Test(arguments: StoreFactory.all) func exportThenImportIntoAFreshDatabaseReproducesEveryEntry(_ factory: StoreFactory) throws {
        var exported: [Entry] = []
        // One clock for both databases: an entry dated ahead of the second's would be scheduled.
        let clock = TestClock()
        try withStore(factory, clock: clock) { store, clock in
            let alice = try seed(store, clock, corpus)
            let travel = try store.createDiary(ownerID: alice.id, title: "Travel")
            _ = try store.createEntry(userID: alice.id, diaryID: travel.id, title: "Osaka", body: "たこ焼き", tags: ["food"], created: Date(timeIntervalSince1970: 1_700_000_000))
            let batches = store.exportBatches(ownerID: alice.id, batchSize: 2)
            while let batch = try batches.next() { exported += batch }
            #expect(exported.map(\.id) == [1, 2, 3, 4, 5])
        }
        try withStore(factory, clock: clock) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let result = try store.importEntries(userID: alice.id, entries: exported.map { ImportedEntry($0, visibility: $0.visibility) })
            #expect(result == ImportResult(created: 5, skipped: 0))
            var reimported: [Entry] = []
            let batches = store.exportBatches(ownerID: alice.id, batchSize: 3)
            while let batch = try batches.next() { reimported += batch }
            #expect(reimported == exported)
            #expect(try store.importEntries(userID: alice.id, entries: exported.map { ImportedEntry($0, visibility: $0.visibility) }) == ImportResult(created: 0, skipped: 5))
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 5)
            #expect(try titles(store, EntryFilter(query: "たこ焼き")) == ["Osaka"])

            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            var foreign = exported[0]
            foreign.id = 99
            expectStoreError(.forbidden) { try store.importEntries(userID: bob.id, entries: [ImportedEntry(foreign, visibility: nil)]) }
            foreign.author = "bob"
            expectStoreError(.forbidden, .diary(1)) { try store.importEntries(userID: bob.id, entries: [ImportedEntry(foreign, visibility: nil)]) }
        }
    }
}
