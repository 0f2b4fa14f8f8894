import DiaryAPI
@testable import DiaryPostgresStore
import DiaryStore
import Foundation
import StoreTestSupport
import Testing

/// The batched writer behind `diary-server seed` on PostgreSQL keeps the rules of every write:
/// ids in order, whole-second times, counts and diary times in the same transaction, the data
/// version moved, and a failing batch undone alone (as SQLite's `insertEntries`).
@Suite(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
struct PostgresSeedTests {
    @Test func seededEntriesReadBackAsWrittenWithCountsDiaryTimesAndANewVersion() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try store.diaries()[0]
            let second = try store.createDiary(ownerID: alice.id, title: "Second")
            let before = try store.dataVersion()
            let start = RFC3339.date(from: "2030-01-01T00:00:00Z")!
            let seeded = (0..<25).map { (index: Int) -> SeedEntry in
                let tags: [String] = index % 3 == 0 ? ["kyoto", "photo"] : []
                return SeedEntry(diaryID: index % 2 == 0 ? first.id : second.id, title: "Entry \(index)",
                                 body: "Body \"\(index)\"\n今日 \\ \t", created: start + TimeInterval(index * 60) + 0.75, tags: tags)
            }
            // A batch size that does not divide the count: the last batch is a short one.
            #expect(try store.insertEntries(seeded, batchSize: 10) == 25)
            #expect(try store.dataVersion() >= before + 3, "each of the 3 batches moves the data version")

            let page = try store.entries(diaryID: nil, page: newestFirstPage)
            #expect(page.total == 25)
            #expect(page.entries.map(\.title) == seeded.reversed().map(\.title))
            #expect(page.entries.map(\.tags) == seeded.reversed().map(\.tags))
            // Ids follow the order given, from the sequence, with no gap inside a batch.
            let ids = page.entries.reversed().map(\.id)
            #expect(ids == Array(ids[0]..<ids[0] + 25))
            let newest = try #require(page.entries.first)
            #expect(newest.author == "alice")
            #expect(newest.body == seeded[24].body)
            #expect(newest.created == start + 24 * 60)  // whole seconds, as the store keeps them
            #expect(newest.updated == newest.created)
            #expect(newest.visibility == .public && newest.tags == ["kyoto", "photo"])

            let diaries = try store.diaries()
            #expect(diaries.map(\.entryCount) == [13, 12])
            #expect(diaries[0].updated == start + 24 * 60)
            #expect(diaries[1].updated == start + 23 * 60)
            // Anyone else sees the same times and counts: the entries are public.
            #expect(try store.diaries(viewerID: nil).map(\.updated) == diaries.map(\.updated))
            #expect(try store.diaries(viewerID: nil).map(\.entryCount) == [13, 12])
            #expect(try store.consistencyCheck() == "ok")
            // A new entry afterwards gets an id above every seeded one.
            let later = try store.createEntry(userID: alice.id, diaryID: nil, title: "later", body: "")
            #expect(later.id > ids[24])
        }
    }

    /// An older seeded time never moves a diary's `updated` back.
    @Test func diaryTimesOnlyMoveForward() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, clock: { Date(timeIntervalSince1970: 1_900_000_000) })
            defer { store.close() }
            _ = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.diaries()[0]
            try store.insertEntries([SeedEntry(diaryID: diary.id, title: "old", body: "", created: Date(timeIntervalSince1970: 1_000))])
            #expect(try store.diaries()[0].updated == diary.updated)
            #expect(try store.diaries()[0].entryCount == 1)
        }
    }

    @Test func anUnknownDiaryRollsBackItsBatchOnly() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            _ = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.diaries()[0]
            let now = Date(timeIntervalSince1970: 1_900_000_000)
            let entries = ["a", "b", "c", "bad"].map { title in
                SeedEntry(diaryID: title == "bad" ? 999 : diary.id, title: title, body: "", created: now)
            }
            // Batches [a, b] and [c, bad]: the first is written, the second rolled back whole.
            expectStoreError(.unavailable) { try store.insertEntries(entries, batchSize: 2) }
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).entries.map(\.title) == ["b", "a"])
            #expect(try store.diaries()[0].entryCount == 2)
            #expect(try store.consistencyCheck() == "ok")
        }
    }
}
