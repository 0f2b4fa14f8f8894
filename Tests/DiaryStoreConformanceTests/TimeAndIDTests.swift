import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

/// Times are whole seconds of the store's clock, ids are handed out once, and `lastModified`
/// agrees with the diaries: what ETags, `Last-Modified` and old links rely on.
@Suite struct TimeAndIDTests {
    /// A clock three quarters into a second: every time written and read back is the second itself.
    @Test(arguments: StoreFactory.all) func everyTimeIsAWholeSecondOfTheClock(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let second = clock.now
            clock.advance(seconds: 0.75)
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try #require(try store.diaries().first)
            #expect(first.created == second && first.updated == second)
            let diary = try store.createDiary(ownerID: alice.id, title: "Travel")
            #expect(diary.created == second && diary.updated == second)

            let entry = try store.createEntry(userID: alice.id, diaryID: diary.id, title: "a", body: "")
            #expect(entry.created == second && entry.updated == second)
            #expect(try store.entry(id: entry.id) == entry)

            let backDated = try store.createEntry(
                userID: alice.id, diaryID: diary.id, title: "b", body: "", created: RFC3339.date(from: "2026-01-01T00:00:00Z")! + 0.5
            )
            #expect(backDated.created == RFC3339.date(from: "2026-01-01T00:00:00Z"))
            #expect(try store.entry(id: backDated.id) == backDated)

            clock.advance(seconds: 60)
            let moved = try store.updateEntry(
                id: entry.id, userID: alice.id, changes: EntryChanges(created: RFC3339.date(from: "2026-02-01T00:00:00Z")! + 0.999)
            )
            #expect(moved.created == RFC3339.date(from: "2026-02-01T00:00:00Z"))
            #expect(moved.updated == second + 60)
            #expect(try store.entry(id: entry.id) == moved)
            #expect(try store.diary(id: diary.id)?.updated == second + 60)
            #expect(try store.lastModified(diaryID: diary.id) == second + 60)
            #expect(try store.entries(diaryID: diary.id, page: newestFirstPage).entries == [moved, backDated])
        }
    }

    /// `If-Modified-Since` is answered from `lastModified`: it must be the diary's `updated`,
    /// or the latest of all, and move with every change of an entry.
    @Test(arguments: StoreFactory.all) func lastModifiedIsTheDiarysUpdated(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            #expect(try store.lastModified(diaryID: nil) == nil, "no diary at all")
            #expect(try store.lastModified(diaryID: 1) == nil)
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            clock.advance(seconds: 60)
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let alicesDiary = try #require(try store.diaries().first { $0.owner == "alice" })
            let bobsDiary = try #require(try store.diaries().first { $0.owner == "bob" })
            #expect(try store.lastModified(diaryID: alicesDiary.id) == alicesDiary.updated)
            #expect(try store.lastModified(diaryID: nil) == bobsDiary.updated, "the latest of all")
            #expect(try store.lastModified(diaryID: 999) == nil)

            clock.advance(seconds: 60)
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "")
            #expect(try store.lastModified(diaryID: alicesDiary.id) == entry.created)
            #expect(try store.lastModified(diaryID: nil) == entry.created)
            #expect(try store.lastModified(diaryID: bobsDiary.id) == bobsDiary.updated)
            clock.advance(seconds: 60)
            try store.deleteEntry(id: entry.id, userID: alice.id)
            #expect(try store.lastModified(diaryID: alicesDiary.id) == clock.now, "a delete is a change")
            for diary in try store.diaries(viewerID: bob.id) {
                #expect(try store.lastModified(diaryID: diary.id, viewerID: bob.id) == diary.updated)
            }
        }
    }

    /// A deleted entry's id is never handed out again, also not by another store on the data
    /// (a restarted server): an old link answers 404, not someone's newer entry.
    @Test(arguments: StoreFactory.all) func idsAreNeverReused(_ factory: StoreFactory) throws {
        try withStoreUnderTest(factory) { subject in
            let store = subject.store
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            #expect(bob.id > alice.id)
            var ids: [Int64] = []
            for index in 0..<3 { ids.append(try store.createEntry(userID: alice.id, diaryID: nil, title: "\(index)", body: "").id) }
            #expect(ids == ids.sorted() && Set(ids).count == 3)
            for id in ids.reversed() { try store.deleteEntry(id: id, userID: alice.id) }

            let next = try store.createEntry(userID: bob.id, diaryID: nil, title: "bob's", body: "")
            #expect(next.id > ids.max()!)
            for id in ids { #expect(try store.entry(id: id) == nil) }
            try store.deleteEntry(id: next.id, userID: bob.id)
            let other = try subject.openAnother()
            #expect(try other.createEntry(userID: bob.id, diaryID: nil, title: "later", body: "").id > next.id)
            let diaries = try store.diaries().map(\.id)
            #expect(try store.createDiary(ownerID: bob.id, title: "More").id > diaries.max()!)
        }
    }
}
