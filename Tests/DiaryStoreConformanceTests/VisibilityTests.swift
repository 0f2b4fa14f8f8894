import DiaryAPI
import DiaryStore
import Foundation
import StoreTestSupport
import Testing

/// Who sees what: private entries exist for their owner only, unlisted ones by id, and what
/// others see of a diary (counts, times, tags) is made of public entries.
@Suite struct VisibilityTests {
    @Test(arguments: StoreFactory.all) func privateEntriesExistForTheirOwnerOnly(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let open = try store.createEntry(userID: alice.id, diaryID: nil, title: "open kyoto", body: "", tags: ["travel"])
            clock.advance(seconds: 60)
            let seenBefore = try store.lastModified(diaryID: nil)
            let secret = try store.createEntry(userID: alice.id, diaryID: nil, title: "secret kyoto", body: "", tags: ["travel", "hidden"], visibility: .private)
            let link = try store.createEntry(userID: alice.id, diaryID: nil, title: "link kyoto", body: "", visibility: .unlisted)
            #expect(secret.visibility == .private && link.visibility == .unlisted && open.visibility == .public)

            #expect(try store.entry(id: secret.id) == nil)
            #expect(try store.entry(id: secret.id, viewerID: bob.id) == nil)
            #expect(try store.entry(id: secret.id, viewerID: alice.id) == secret)
            #expect(try store.entry(id: link.id) == link)

            // Lists, counts, times and tags, as anyone else and as the owner.
            for viewer in [nil, bob.id] {
                let page = try store.entries(EntryQuery(filter: EntryFilter(query: "kyoto"), viewerID: viewer)).page
                #expect(page.entries.map(\.id) == [open.id] && page.total == 1)
                #expect(try store.entries(diaryID: nil, page: newestFirstPage, viewerID: viewer).total == 1)
                #expect(try store.diary(id: open.diaryID, viewerID: viewer)?.entryCount == 1)
                #expect(try store.diaries(viewerID: viewer).first?.updated == open.updated)
                #expect(try store.lastModified(diaryID: open.diaryID, viewerID: viewer) == seenBefore)
                #expect(try store.tags(viewerID: viewer) == [TagCount(name: "travel", count: 1)])
            }
            let own = try store.entries(EntryQuery(filter: EntryFilter(query: "kyoto"), viewerID: alice.id)).page
            #expect(Set(own.entries.map(\.id)) == [open.id, secret.id, link.id] && own.total == 3)
            #expect(try store.diary(id: open.diaryID, viewerID: alice.id)?.entryCount == 3)
            #expect(try store.lastModified(diaryID: nil, viewerID: alice.id) == clock.now)
            #expect(try store.tags(viewerID: alice.id) == [TagCount(name: "hidden", count: 1), TagCount(name: "travel", count: 2)])

            // Another user cannot change them: a private entry does not exist for them.
            expectStoreError(.notFound, .entry(secret.id)) {
                try store.updateEntry(id: secret.id, userID: bob.id, changes: EntryChanges(title: "mine"))
            }
            expectStoreError(.notFound, .entry(secret.id)) { try store.deleteEntry(id: secret.id, userID: bob.id) }
            expectStoreError(.forbidden, .entry(link.id)) { try store.deleteEntry(id: link.id, userID: bob.id) }
            expectStoreError(.forbidden, .entry(open.id)) {
                try store.updateEntry(id: open.id, userID: bob.id, changes: EntryChanges(visibility: .private))
            }
        }
    }

    @Test(arguments: StoreFactory.all) func changesOfHiddenEntriesMoveOnlyWhatTheirOwnerSees(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let open = try store.createEntry(userID: alice.id, diaryID: nil, title: "open", body: "")
            let seen = try store.lastModified(diaryID: open.diaryID)
            clock.advance(seconds: 60)
            let secret = try store.createEntry(userID: alice.id, diaryID: nil, title: "s", body: "", visibility: .private)
            clock.advance(seconds: 60)
            _ = try store.updateEntry(id: secret.id, userID: alice.id, changes: EntryChanges(title: "t", visibility: .unlisted))
            clock.advance(seconds: 60)
            try store.deleteEntry(id: secret.id, userID: alice.id)
            #expect(try store.lastModified(diaryID: open.diaryID) == seen)
            #expect(try store.diary(id: open.diaryID)?.entryCount == 1)
            #expect(try store.lastModified(diaryID: open.diaryID, viewerID: alice.id) == clock.now)

            // Publishing moves what everyone sees, and keeps the entry's date unless one is given.
            let draft = try store.createEntry(userID: alice.id, diaryID: nil, title: "d", body: "", created: clock.now - 86_400, visibility: .private)
            clock.advance(seconds: 60)
            let published = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(visibility: .public))
            #expect(published.created == draft.created && published.updated == clock.now)
            #expect(try store.lastModified(diaryID: open.diaryID) == clock.now)
            #expect(try store.diary(id: open.diaryID)?.entryCount == 2)
            let moved = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(created: Date(timeIntervalSince1970: 1_800_000_000.7)))
            #expect(moved.created == Date(timeIntervalSince1970: 1_800_000_000))
        }
    }

    @Test(arguments: StoreFactory.all) func diariesGiveTheirDefaultToNewAndImportedEntries(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let notes = try store.createDiary(ownerID: alice.id, title: "Notes", defaultVisibility: .private)
            #expect(try store.createEntry(userID: alice.id, diaryID: notes.id, title: "n", body: "").visibility == .private)
            #expect(try store.createEntry(userID: alice.id, diaryID: notes.id, title: "o", body: "", visibility: .public).visibility == .public)

            let changed = try store.updateDiary(id: notes.id, userID: alice.id, title: nil, defaultVisibility: .unlisted)
            #expect(changed.title == "Notes" && changed.defaultVisibility == .unlisted)
            expectStoreError(.forbidden, .diary(notes.id)) { try store.updateDiary(id: notes.id, userID: bob.id, title: "x", defaultVisibility: nil) }
            expectStoreError(.notFound, .diary(999)) { try store.updateDiary(id: 999, userID: alice.id, title: "x", defaultVisibility: nil) }

            let date = Date(timeIntervalSince1970: 1_790_000_000)
            func imported(_ id: Int64, _ visibility: Visibility?) -> ImportedEntry {
                ImportedEntry(Entry(id: id, diaryID: notes.id, author: "alice", title: "i\(id)", body: "", created: date, updated: date), visibility: visibility)
            }
            let result = try store.importEntries(userID: alice.id, entries: [imported(100, nil), imported(101, .private), imported(102, .public)])
            #expect(result == ImportResult(created: 3, skipped: 0))
            #expect(try store.entry(id: 100, viewerID: alice.id)?.visibility == .unlisted)
            #expect(try store.entry(id: 101, viewerID: alice.id)?.visibility == .private)
            #expect(try store.entry(id: 102)?.visibility == .public)

            // Export: everyone's public entries, or all of one owner's.
            var everyone: [Entry] = [], mine: [Entry] = []
            let publicBatches = store.exportBatches(ownerID: nil, batchSize: 2)
            while let batch = try publicBatches.next() { everyone += batch }
            let ownBatches = store.exportBatches(ownerID: alice.id, batchSize: 2)
            while let batch = try ownBatches.next() { mine += batch }
            #expect(everyone.allSatisfy { $0.visibility == .public } && everyone.map(\.id).contains(102))
            #expect(mine.count == 5 && Set(mine.map(\.visibility)) == [.public, .unlisted, .private])
            var bobs: [Entry] = []
            let bobBatches = store.exportBatches(ownerID: bob.id)
            while let batch = try bobBatches.next() { bobs += batch }
            #expect(bobs.isEmpty)
        }
    }

    @Test(arguments: StoreFactory.all) func theDataVersionMovesWithEveryWriteAndNoRead(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let start = try store.dataVersion()
            #expect(try store.dataVersion() == start)
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let afterUser = try store.dataVersion()
            #expect(afterUser != start)
            _ = try store.entries(diaryID: nil, page: newestFirstPage)
            _ = try store.diaries()
            #expect(try store.dataVersion() == afterUser)
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "p", body: "", visibility: .private)
            #expect(try store.dataVersion() != afterUser)
        }
    }
}

/// Import keeps ids where that gives nothing away, and never gives an id out twice.
@Suite struct ImportIDTests {
    @Test(arguments: StoreFactory.all) func idsAreKeptAboveEveryIDGivenOutAndNewBelow(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let date = Date(timeIntervalSince1970: 1_790_000_000)
            func line(_ id: Int64, _ author: String, diary: Int64) -> ImportedEntry {
                ImportedEntry(Entry(id: id, diaryID: diary, author: author, title: "t\(id)", body: "", created: date, updated: date), visibility: nil)
            }
            // Into an empty store, in any order: every id kept.
            #expect(try store.importEntries(userID: alice.id, entries: [line(5, "alice", diary: 1), line(3, "alice", diary: 1)]) == ImportResult(created: 2))
            #expect(try store.entry(id: 3)?.title == "t3" && store.entry(id: 5)?.title == "t5")
            // Again: the caller's own are skipped.
            #expect(try store.importEntries(userID: alice.id, entries: [line(5, "alice", diary: 1)]) == ImportResult(created: 0, skipped: 1))

            let secret = try store.createEntry(userID: alice.id, diaryID: nil, title: "secret", body: "", visibility: .private)
            try store.deleteEntry(id: 3, userID: alice.id)
            // Bob's entries with alice's private id, a deleted id and a never-used low id: each is
            // created under a new id, the same answer whatever those ids hold.
            let result = try store.importEntries(userID: bob.id, entries: [
                line(secret.id, "bob", diary: 2), line(3, "bob", diary: 2), line(1, "bob", diary: 2),
            ])
            #expect(result == ImportResult(created: 3, skipped: 0))
            #expect(try store.entry(id: secret.id, viewerID: alice.id)?.title == "secret")
            #expect(try store.entry(id: 3) == nil)
            let bobs = try store.entries(diaryID: 2, page: newestFirstPage).entries
            #expect(bobs.count == 3 && bobs.allSatisfy { $0.id > secret.id && $0.author == "bob" })
            // Above every id given out: kept.
            #expect(try store.importEntries(userID: bob.id, entries: [line(1_000, "bob", diary: 2)]) == ImportResult(created: 1))
            #expect(try store.entry(id: 1_000)?.author == "bob")
        }
    }
}
