import DiaryAPI
import DiaryStore
import Foundation
import StoreTestSupport
import Testing

/// Drafts: their owner's alone, exactly as a private entry, until published; publishing dates
/// them now unless a date comes with it, and moves what others see at that moment only.
@Suite struct DraftTests {
    @Test(arguments: StoreFactory.all) func aDraftIsItsOwnersAloneUntilPublished(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "published", body: "", tags: ["t"])
            clock.advance(seconds: 60)
            let before = try [nil, bob.id].map { try seenByOthers(store, viewerID: $0, searching: "draft") }

            let draft = try store.createEntry(userID: alice.id, diaryID: nil, title: "a draft", body: "draft words", tags: ["t", "secret"], draft: true)
            #expect(draft.draft && draft.visibility == .public)
            #expect(try store.entry(id: draft.id, viewerID: alice.id) == draft)
            #expect(try store.entry(id: draft.id, viewerID: nil) == nil)
            #expect(try store.entry(id: draft.id, viewerID: bob.id) == nil)
            #expect(try [nil, bob.id].map { try seenByOthers(store, viewerID: $0, searching: "draft") } == before)
            #expect(try store.entries(EntryQuery(page: newestFirstPage, viewerID: alice.id)).page.entries.first == draft)
            // Another user cannot change it, nor learn that it exists.
            expectStoreError(.notFound, .entry(draft.id)) {
                try store.updateEntry(id: draft.id, userID: bob.id, changes: EntryChanges(title: "x"))
            }

            clock.advance(seconds: 3600)
            let published = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(draft: false))
            #expect(!published.draft && published.visibility == .public)
            #expect(published.created == clock.now)  // its publication time
            #expect(try store.entry(id: draft.id, viewerID: nil) == published)
            #expect(try store.diary(id: draft.diaryID)?.entryCount == 2)
            #expect(try store.lastModified(diaryID: nil, viewerID: nil) == clock.now)
            #expect(try store.tags(viewerID: nil).map(\.name) == ["secret", "t"])
        }
    }

    @Test(arguments: StoreFactory.all) func publishingKeepsAGivenDateAndAnEntryCanBecomeADraftAgain(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let draft = try store.createEntry(userID: alice.id, diaryID: nil, title: "d", body: "", visibility: .unlisted, draft: true)
            let dated = RFC3339.date(from: "2026-01-02T03:04:05Z")!
            clock.advance(seconds: 60)
            let published = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(created: dated, draft: false))
            #expect(published.created == dated && published.visibility == .unlisted && !published.draft)
            #expect(try store.entry(id: draft.id, viewerID: nil) == published)  // unlisted: read by id

            let public_ = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(visibility: .public))
            #expect(try store.diary(id: public_.diaryID)?.entryCount == 1)
            let again = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(draft: true))
            #expect(again.draft && again.visibility == .public && again.created == dated)
            #expect(try store.entry(id: draft.id, viewerID: nil) == nil)
            #expect(try store.diary(id: public_.diaryID)?.entryCount == 0)
            #expect(try store.diary(id: public_.diaryID, viewerID: alice.id)?.entryCount == 1)
            // A change of visibility while a draft is kept for its publication.
            let private_ = try store.updateEntry(id: draft.id, userID: alice.id, changes: EntryChanges(visibility: .private))
            #expect(private_.draft && private_.visibility == .private)
        }
    }

    @Test(arguments: StoreFactory.all) func anExportedDraftIsImportedAsADraft(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let draft = try store.createEntry(userID: alice.id, diaryID: nil, title: "d", body: "", draft: true)
            let exported = try store.entries(afterID: nil, limit: 10, ownerID: alice.id)
            #expect(exported == [draft])
            var moved = draft
            moved.id = 100
            let result = try store.importEntries(userID: alice.id, entries: [ImportedEntry(moved, visibility: .public)])
            #expect(result.created == 1)
            #expect(try store.entry(id: 100, viewerID: alice.id)?.draft == true)
            #expect(try store.entry(id: 100, viewerID: nil) == nil)
            #expect(try store.diary(id: draft.diaryID)?.entryCount == 0)
        }
    }
}
