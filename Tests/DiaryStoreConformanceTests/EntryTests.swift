import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

@Suite struct EntryTests {
    @Test(arguments: StoreFactory.all) func createReadUpdateDelete(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try #require(try store.diaries().first)
            clock.advance(seconds: 10)

            let created = try store.createEntry(userID: alice.id, diaryID: nil, title: "Hello", body: "First day.")
            #expect(created.diaryID == diary.id)
            #expect(created.author == "alice")
            #expect(created.title == "Hello")
            #expect(created.body == "First day.")
            #expect(created.created == clock.now)
            #expect(created.updated == created.created)
            #expect(try store.entry(id: created.id) == created)
            var diaryNow = try #require(try store.diary(id: diary.id))
            #expect(diaryNow.entryCount == 1)
            #expect(diaryNow.updated == created.created)
            #expect(diaryNow.created == diary.created)

            clock.advance(seconds: 30)
            let retitled = try store.updateEntry(id: created.id, userID: alice.id, changes: EntryChanges(title: "Hello again"))
            #expect(retitled.title == "Hello again")
            #expect(retitled.body == "First day.")
            #expect(retitled.created == created.created)
            #expect(retitled.updated == clock.now)
            #expect(try store.entry(id: created.id) == retitled)

            clock.advance(seconds: 30)
            let rewritten = try store.updateEntry(id: created.id, userID: alice.id, changes: EntryChanges(body: "Second thoughts."))
            #expect(rewritten.title == "Hello again")
            #expect(rewritten.body == "Second thoughts.")
            #expect(rewritten.updated == clock.now)
            diaryNow = try #require(try store.diary(id: diary.id))
            #expect(diaryNow.updated == clock.now)

            clock.advance(seconds: 30)
            try store.deleteEntry(id: created.id, userID: alice.id)
            #expect(try store.entry(id: created.id) == nil)
            diaryNow = try #require(try store.diary(id: diary.id))
            #expect(diaryNow.entryCount == 0)
            #expect(diaryNow.updated == clock.now)

            expectStoreError(.notFound, .entry(created.id)) { try store.deleteEntry(id: created.id, userID: alice.id) }
            expectStoreError(.notFound, .entry(created.id)) {
                try store.updateEntry(id: created.id, userID: alice.id, changes: EntryChanges(title: "Ghost"))
            }
            #expect(try store.entry(id: 12345) == nil)
        }
    }

    @Test(arguments: StoreFactory.all) func textIsStoredAsGiven(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let body = "Ünïcødé 日記 🙂\nline two\t'quotes' \"double\" -- ; DROP TABLE entries;\r\n" + String(repeating: "x", count: 100_000)
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "Robert'); --", body: body)
            let read = try #require(try store.entry(id: entry.id))
            #expect(read.body == body)
            #expect(read.title == "Robert'); --")
            let empty = try store.createEntry(userID: alice.id, diaryID: nil, title: "Empty", body: "")
            #expect(try store.entry(id: empty.id)?.body == "")
        }
    }

    @Test(arguments: StoreFactory.all) func anotherUsersEntryOrDiaryIsForbiddenAndUnchanged(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "Mine", body: "Private")
            let aliceDiary = try #require(try store.diary(id: entry.diaryID))
            clock.advance(seconds: 60)

            expectStoreError(.forbidden, .entry(entry.id)) {
                try store.updateEntry(id: entry.id, userID: bob.id, changes: EntryChanges(title: "Bob was here", body: "x"))
            }
            expectStoreError(.forbidden, .entry(entry.id)) { try store.deleteEntry(id: entry.id, userID: bob.id) }
            expectStoreError(.forbidden, .diary(aliceDiary.id)) {
                try store.createEntry(userID: bob.id, diaryID: aliceDiary.id, title: "Intruder", body: "x")
            }

            #expect(try store.entry(id: entry.id) == entry)
            #expect(try store.diary(id: aliceDiary.id) == aliceDiary)
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 1)
        }
    }

    @Test(arguments: StoreFactory.all) func unknownDiaryIsNotFound(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            expectStoreError(.notFound, .diary(999)) { try store.entries(diaryID: 999, page: PageRequest()) }
            expectStoreError(.notFound, .diary(999)) {
                try store.createEntry(userID: alice.id, diaryID: 999, title: "Lost", body: "x")
            }
            expectStoreError(.notFound, .user(999)) {
                try store.createEntry(userID: 999, diaryID: nil, title: "Nobody", body: "x")
            }
            #expect(try store.diary(id: 999) == nil)
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 0)
        }
    }

    @Test(arguments: StoreFactory.all) func entriesWithoutDiaryGoToTheFirstOneOrANewOne(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try #require(try store.diaries().first)
            let second = try store.createDiary(ownerID: alice.id, title: "Second")
            #expect(try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "").diaryID == first.id)
            #expect(try store.createEntry(userID: alice.id, diaryID: second.id, title: "b", body: "").diaryID == second.id)
        }
    }

    @Test(arguments: StoreFactory.all) func entryCountsFollowEveryChange(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let aliceDiary = try #require(try store.diaries().first { $0.owner == "alice" })
            let travel = try store.createDiary(ownerID: alice.id, title: "Travel")
            var ids: [Int64] = []
            for i in 0..<7 {
                ids.append(try store.createEntry(userID: alice.id, diaryID: i.isMultiple(of: 2) ? aliceDiary.id : travel.id, title: "\(i)", body: "").id)
            }
            for i in 0..<3 { _ = try store.createEntry(userID: bob.id, diaryID: nil, title: "b\(i)", body: "") }
            try store.deleteEntry(id: ids[0], userID: alice.id)
            try store.deleteEntry(id: ids[1], userID: alice.id)

            let counts = Dictionary(uniqueKeysWithValues: try store.diaries().map { ($0.title, $0.entryCount) })
            #expect(counts == ["alice's diary": 3, "Travel": 2, "bob's diary": 3])
            for diary in try store.diaries() {
                let page = try store.entries(diaryID: diary.id, page: newestFirstPage)
                #expect(page.total == diary.entryCount)
                #expect(page.entries.count == diary.entryCount)
                #expect(page.entries.allSatisfy { $0.diaryID == diary.id && $0.author == diary.owner })
            }
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 8)
        }
    }
}
