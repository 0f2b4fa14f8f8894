import DiaryAPI
import DiaryStore
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import Testing

/// What a person with the sqlite3 shell can do to the file, and the store copes with.
@Suite struct EditedFileTests {
    @Test func aUserWithoutAnyDiaryGetsANewOneForTheirNextEntry() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let second = try store.createDiary(ownerID: alice.id, title: "Second")
            // The API cannot delete a diary; a person with sqlite3 can.
            try store.executeOnWriter("DELETE FROM diaries WHERE user_id = \(alice.id)")
            #expect(try store.diaries().isEmpty)
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "c", body: "")
            let recreated = try #require(try store.diary(id: entry.diaryID))
            #expect(recreated.title == "alice's diary")
            #expect(recreated.owner == "alice")
            #expect(recreated.entryCount == 1)
            #expect(recreated.id > second.id)
        }
    }

    /// A visibility the store cannot read (written past the schema's CHECK) fails the call
    /// that reads it as `.unavailable`, about what the call was about, as PostgreSQL's does.
    @Test func anUnreadableVisibilityIsUnavailableForTheCallThatReadsIt() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "t", body: "b")
            try store.executeOnWriter("""
                PRAGMA ignore_check_constraints = ON; UPDATE entries SET visibility = 'secret' WHERE entry_id = \(entry.id);
                PRAGMA ignore_check_constraints = OFF
                """)
            let error = expectStoreError(.unavailable, .entry(entry.id)) { try store.entry(id: entry.id, viewerID: alice.id) }
            #expect(error?.detail == #"the database is damaged: entries.visibility holds "secret""#)
            expectStoreError(.unavailable, .entry(entry.id)) {
                try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "u"))
            }
            expectStoreError(.unavailable, .operation("entries")) { try store.entries(EntryQuery(viewerID: alice.id)) }
            try store.executeOnWriter("UPDATE entries SET visibility = 'public' WHERE entry_id = \(entry.id)")
        }
    }
}
