import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel
import Testing

/// The owner and visibility rule, and the idempotency and precondition rules, as pure functions.
@Suite struct EntryAccessTests {
    @Test func aPrivateEntryIsReadByItsOwnerOnly() {
        for visibility in [Visibility.public, .unlisted] {
            #expect(EntryAccess.mayRead(visibility, ownerID: 1, viewerID: nil))
            #expect(EntryAccess.mayRead(visibility, ownerID: 1, viewerID: 2))
        }
        #expect(EntryAccess.mayRead(.private, ownerID: 1, viewerID: 1))
        #expect(!EntryAccess.mayRead(.private, ownerID: 1, viewerID: 2))
        #expect(!EntryAccess.mayRead(.private, ownerID: 1, viewerID: nil))
    }

    @Test func anotherUsersPrivateEntryDoesNotExistForAChange() throws {
        let stored = { (visibility: Visibility) in
            StoredEntryOwner(diaryID: 7, ownerID: 1, columns: EntryDraft.Stored(visibility, draft: false), created: Date(timeIntervalSince1970: 0))
        }
        #expect(try EntryAccess.ownedEntry(3, stored: stored(.private), userID: 1).diaryID == 7)
        #expect(throws: StoreError(.forbidden, .entry(3))) { try EntryAccess.ownedEntry(3, stored: stored(.unlisted), userID: 2) }
        #expect(throws: StoreError(.notFound, .entry(3))) { try EntryAccess.ownedEntry(3, stored: stored(.private), userID: 2) }
        #expect(throws: StoreError(.notFound, .entry(3))) { try EntryAccess.ownedEntry(3, stored: nil, userID: 1) }
    }

    @Test func onlyTheOwnerWritesToADiary() throws {
        #expect(try EntryAccess.ownedDiary(5, stored: Int64(1), userID: 1) { $0 } == 1)
        #expect(throws: StoreError(.forbidden, .diary(5))) { try EntryAccess.ownedDiary(5, stored: Int64(2), userID: 1) { $0 } }
        #expect(throws: StoreError(.notFound, .diary(5))) { try EntryAccess.ownedDiary(5, stored: Int64?.none, userID: 1) { $0 } }
    }

    @Test func listableNamesTheViewerAsAValue() {
        #expect(EntryAccess.listable(by: nil).rendered { _ in "?" }.values.isEmpty)
        let own = EntryAccess.listable(by: 9).rendered { "$\($0)" }
        #expect(own.sql == "(e.visibility = 'public' OR e.diary_id IN (SELECT diary_id FROM diaries WHERE user_id = $1))")
        #expect(own.values == [.integer(9)])
    }

    @Test func aKeyReplaysOnlyTheRequestItCameWith() throws {
        let key = IdempotencyKey(key: "k", fingerprint: "f")
        #expect(try key.replayedID(from: nil, creating: .entry) == nil)
        #expect(try key.replayedID(from: IdempotencyRecord(fingerprint: "f", resource: "entry", resourceID: 4), creating: .entry) == 4)
        #expect(throws: StoreError(.keyReused, .idempotencyKey)) {
            try key.replayedID(from: IdempotencyRecord(fingerprint: "g", resource: "entry", resourceID: 4), creating: .entry)
        }
        #expect(throws: StoreError(.keyReused, .idempotencyKey)) {
            try key.replayedID(from: IdempotencyRecord(fingerprint: "f", resource: "diary", resourceID: 4), creating: .entry)
        }
    }

    @Test func aPreconditionIsCheckedOnTheStoredEntryOnlyWhenThereIsOne() throws {
        var reads = 0
        try EntryPreconditionCheck.verify(nil, entryID: 1) { reads += 1; return nil }
        #expect(reads == 0)
        #expect(throws: StoreError(.preconditionFailed, .entry(1))) {
            try EntryPreconditionCheck.verify({ _ in true }, entryID: 1) { nil }
        }
    }
}
