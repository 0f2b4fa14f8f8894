import DiaryAPI
@testable import DiaryPostgresStore
import DiaryStore
import Foundation
import StoreTestSupport
import Testing

/// Terms of fewer than three characters, which the bigram index (schema v4) and the index of
/// characters (v11) narrow: they find
/// what the scan found before it, every entry holding the two characters (ASCII letters folded),
/// in the title or the body, in any script, as the viewer may list them, and follow every write.
@Suite(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
struct PostgresBigramSearchTests {
    /// The titles `viewerID` finds for `query`, newest first.
    func titles(_ store: PostgresDiaryStore, _ query: String, viewerID: Int64? = nil) throws -> [String] {
        let filter = EntryFilter(query: query, order: .newest)
        return try store.entries(EntryQuery(page: PageRequest(page: 1, perPage: 50), filter: filter, viewerID: viewerID))
            .page.entries.map(\.title)
    }

    @Test func twoCharacterTermsFindTitlesAndBodiesInAnyScript() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let day = Date(timeIntervalSince1970: 1_767_225_600)
            func post(_ title: String, _ body: String, _ minutes: Double, _ visibility: Visibility = .public) throws -> Entry {
                try store.createEntry(userID: alice.id, diaryID: nil, title: title, body: body, created: day + minutes * 60, visibility: visibility)
            }
            _ = try post("紅葉", "山は赤い。", 1)
            _ = try post("旅", "京都の紅葉を見た。", 2)
            _ = try post("Jazz", "a quiet evening", 3)
            _ = try post("night", "BUZZ of the fridge", 4)
            _ = try post("secret", "京都 again", 5, .private)
            _ = try post("split", "紅 葉 apart, and Z Z", 6)
            #expect(try titles(store, "紅葉") == ["旅", "紅葉"])
            #expect(try titles(store, "京都") == ["旅"])
            #expect(try titles(store, "京都", viewerID: alice.id) == ["secret", "旅"])
            #expect(try titles(store, "京都", viewerID: bob.id) == ["旅"])
            // ASCII letters fold either way, in the title and in the body.
            #expect(try titles(store, "zz") == ["night", "Jazz"])
            #expect(try titles(store, "ZZ") == ["night", "Jazz"])
            #expect(try titles(store, "Ja") == ["Jazz"])
            // Two terms: each must be there.
            #expect(try titles(store, "zz ev") == ["Jazz"])
            // A pair across the title and the body is no pair of either.
            #expect(try titles(store, "旅京") == [])
            #expect(try titles(store, "qq") == [])
        }
    }

    /// Terms of one character are found as the scan found them (ASCII letters folded, in the
    /// title or the body, as the viewer may list them), through the index of characters
    /// (schema v11): LIKE's signs and an emoji too.
    @Test func oneCharacterTermsFindTitlesAndBodiesInAnyScript() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let day = Date(timeIntervalSince1970: 1_767_225_600)
            func post(_ title: String, _ body: String, _ minutes: Double, _ visibility: Visibility = .public) throws {
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: title, body: body, created: day + minutes * 60, visibility: visibility)
            }
            try post("emoji", "a 😀 day", 1)
            try post("percent", "all 100% sure", 2)
            try post("under", "snake_case", 3)
            try post("rain", "今日は雨", 4)
            try post("Quiet", "no such letter", 5)
            try post("secret", "😀 again", 6, .private)
            #expect(try titles(store, "😀") == ["emoji"])
            #expect(try titles(store, "😀", viewerID: alice.id) == ["secret", "emoji"])
            #expect(try titles(store, "%") == ["percent"] && titles(store, "_") == ["under"] && titles(store, "\\") == [])
            #expect(try titles(store, "雨") == ["rain"] && titles(store, "q") == ["Quiet"] && titles(store, "Q") == ["Quiet"])
            #expect(try titles(store, "😀 a") == ["emoji"] && titles(store, "☃") == [])
        }
    }

    @Test func twoCharacterTermsFollowEditsAndDeletes() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "旅行", body: "写真")
            #expect(try titles(store, "写真") == ["旅行"])
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "日記", body: "no photo"))
            #expect(try titles(store, "写真") == [])
            #expect(try titles(store, "旅行") == [])
            #expect(try titles(store, "日記") == ["日記"])
            #expect(try titles(store, "ph") == ["日記"])
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(visibility: .private))
            #expect(try titles(store, "日記") == [])
            #expect(try titles(store, "日記", viewerID: alice.id) == ["日記"])
            try store.deleteEntry(id: entry.id, userID: alice.id)
            #expect(try titles(store, "日記", viewerID: alice.id) == [])
        }
    }

    /// A database of schema version 3, with entries in it, gets the bigram index when a newer
    /// store opens it: its entries are found through the index at once.
    @Test func aVersion3DatabaseGetsTheBigramIndexOfItsEntries() throws {
        try withDatabase { url in
            try writeOldDatabase(url, version: 3, body: "CASE WHEN i = 777 THEN '京都にて' ELSE md5(i::text) END")
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            #expect(try store.appliedMigrations() == PostgresDiaryStore.schemaVersions)
            #expect(try store.consistencyCheck() == "ok")
            #expect(try titles(store, "京都") == ["entry 777"])
            let plan = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "京都")))
            #expect(plan.contains("entries_bigrams"), "\(plan)")
        }
    }

    /// A database of schema version 10 gets the index of characters when a newer store opens
    /// it: a character in one entry of 2,000 is looked up, not scanned for.
    @Test func aVersion10DatabaseGetsTheIndexOfCharacters() throws {
        try withDatabase { url in
            try writeOldDatabase(url, version: 10, body: "CASE WHEN i = 777 THEN 'a 😀 day' ELSE md5(i::text) END")
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            #expect(try store.appliedMigrations() == PostgresDiaryStore.schemaVersions)
            #expect(try titles(store, "😀") == ["entry 777"])
            for order in [EntryOrder.newest, .relevance] {
                let plan = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "😀", order: order)))
                #expect(plan.contains("entries_characters"), "\(plan)")
            }
        }
    }
}
