import DiaryAPI
import DiaryStore
import Foundation
import Synchronization
import StoreTestSupport
import Testing

/// Scheduled posts: an entry dated ahead of the clock is its owner's alone, exactly as a draft,
/// until `publishDue(at:)` runs at or after its time; then it is an ordinary entry everywhere,
/// dated as it was scheduled.
@Suite struct ScheduleTests {
    @Test(arguments: StoreFactory.all) func aScheduledEntryIsHiddenUntilItsTimeThenEverywhere(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "published", body: "", tags: ["t"])
            clock.advance(seconds: 60)
            let before = try [nil, bob.id].map { try seenByOthers(store, viewerID: $0, searching: "soon") }
            #expect(try store.nextPublication() == nil)

            let due = clock.now + 2
            let scheduled = try store.createEntry(
                userID: alice.id, diaryID: nil, title: "coming soon", body: "soon words", tags: ["t", "soon"], created: due
            )
            #expect(scheduled.scheduled && !scheduled.draft && scheduled.visibility == .public && scheduled.created == due)
            #expect(try store.entry(id: scheduled.id, viewerID: alice.id) == scheduled)
            #expect(try store.entry(id: scheduled.id, viewerID: nil) == nil)
            #expect(try store.entry(id: scheduled.id, viewerID: bob.id) == nil)
            #expect(try store.entries(EntryQuery(page: newestFirstPage, viewerID: alice.id)).page.entries.first == scheduled)
            #expect(try [nil, bob.id].map { try seenByOthers(store, viewerID: $0, searching: "soon") } == before)
            #expect(try store.nextPublication() == due)
            expectStoreError(.notFound, .entry(scheduled.id)) {
                try store.updateEntry(id: scheduled.id, userID: bob.id, changes: EntryChanges(title: "x"))
            }

            // A second early: nothing is published, nothing moves.
            clock.advance(seconds: 1)
            #expect(try store.publishDue(at: due - 1) == 0)
            #expect(try [nil, bob.id].map { try seenByOthers(store, viewerID: $0, searching: "soon") } == before)

            clock.advance(seconds: 1)
            #expect(try store.publishDue(at: due) == 1)
            let published = try #require(try store.entry(id: scheduled.id, viewerID: nil))
            #expect(!published.scheduled && published.visibility == .public)
            #expect(published.created == due && published.updated == due)  // dated when it appeared
            #expect(try store.entry(id: scheduled.id, viewerID: alice.id) == published)
            #expect(try store.entries(EntryQuery(page: newestFirstPage, viewerID: bob.id)).page.entries.first == published)
            #expect(try store.entries(EntryQuery(page: newestFirstPage, filter: EntryFilter(query: "soon"))).page.entries.map(\.id) == [published.id])
            #expect(try store.diary(id: published.diaryID)?.entryCount == 2)
            #expect(try store.tags(viewerID: nil).map(\.name) == ["soon", "t"])
            #expect(try store.lastModified(diaryID: nil, viewerID: nil) == due)
            #expect(try store.changes(since: nil, viewerID: nil, limit: 10).changes.map(\.entryID).contains(published.id))
            #expect(try store.nextPublication() == nil)
            #expect(try store.publishDue(at: clock.now) == 0)  // idempotent
        }
    }

    @Test(arguments: StoreFactory.all) func draftsAndDatesDecideWhetherAnEntryIsScheduled(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let ahead = clock.now + 3600
            // A draft dated ahead stays a draft.
            let draft = try store.createEntry(userID: alice.id, diaryID: nil, title: "d", body: "", created: ahead, draft: true)
            #expect(draft.draft && !draft.scheduled)
            #expect(try store.nextPublication() == nil)
            // Publishing it with a date ahead schedules it (without one, it is dated now).
            let scheduled = try store.updateEntry(
                id: draft.id, userID: alice.id, changes: EntryChanges(visibility: .unlisted, created: ahead, draft: false)
            )
            #expect(scheduled.scheduled && !scheduled.draft && scheduled.visibility == .unlisted && scheduled.created == ahead)
            #expect(try store.entry(id: draft.id, viewerID: nil) == nil)  // not even unlisted, by id
            #expect(try store.nextPublication() == ahead)
            // An edit keeps it scheduled; making it a draft again unschedules it.
            let edited = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(title: "edited"))
            #expect(edited.scheduled && edited.visibility == .unlisted)
            let drafted = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(draft: true))
            #expect(drafted.draft && !drafted.scheduled && drafted.visibility == .unlisted)
            #expect(try store.nextPublication() == nil)
            // Moved to a date behind the clock, a scheduled entry is published at once.
            _ = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(visibility: .public, created: ahead, draft: false))
            #expect(try store.nextPublication() == ahead)
            let now = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(created: clock.now - 60))
            #expect(!now.scheduled && !now.draft && now.visibility == .public)
            #expect(try store.entry(id: draft.id, viewerID: nil) == now)
            #expect(try store.diary(id: draft.diaryID)?.entryCount == 1)
        }
    }

    @Test(arguments: StoreFactory.all) func anImportedEntryDatedAheadIsScheduled(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.createDiary(ownerID: alice.id, title: "d")
            let ahead = clock.now + 60
            let entry = Entry(id: 100, diaryID: diary.id, author: "alice", title: "i", body: "", created: ahead, updated: clock.now)
            #expect(try store.importEntries(userID: alice.id, entries: [ImportedEntry(entry, visibility: .public)]).created == 1)
            #expect(try store.entry(id: 100, viewerID: alice.id)?.scheduled == true)
            #expect(try store.entry(id: 100, viewerID: nil) == nil)
            #expect(try store.diary(id: diary.id)?.entryCount == 0)
            #expect(try store.publishDue(at: ahead) == 1)
            #expect(try store.diary(id: diary.id)?.entryCount == 1)
        }
    }

    /// Several servers publish at once: each entry is published, and counted, once.
    @Test(arguments: StoreFactory.all) func serversPublishingAtOnceCountEachEntryOnce(_ factory: StoreFactory) throws {
        let clock = TestClock()
        try withStoreUnderTest(factory, clock: clock) { tested in
            let store = tested.store
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let due = clock.now + 5
            for index in 0..<20 {
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "s\(index)", body: "", created: due)
            }
            let servers = try [store] + (0..<2).map { _ in try tested.openAnother() }
            #expect(try servers[1].nextPublication() == due)
            clock.advance(seconds: 5)
            let published = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 6) { index in
                let count = (try? servers[index % 3].publishDue(at: due)) ?? -100
                published.withLock { $0 += count }
            }
            #expect(published.withLock { $0 } == 20)
            #expect(try servers[2].diaries(viewerID: nil).first?.entryCount == 20)
            #expect(try servers[1].nextPublication() == nil)
        }
    }
}
