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
}
