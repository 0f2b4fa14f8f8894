import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel
import Testing

/// The import's rules, on what an engine would have looked up.
@Suite struct ImportPlanTests {
    let then = Date(timeIntervalSince1970: 1_700_000_000)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func imported(_ id: Int64, diary: Int64 = 1, author: String = "alice", _ visibility: Visibility? = nil) -> ImportedEntry {
        ImportedEntry(
            Entry(id: id, diaryID: diary, author: author, title: "t\(id)", body: "", created: then, updated: then, tags: [], visibility: .public),
            visibility: visibility
        )
    }

    func plan(_ entries: [ImportedEntry], entryOwners: [Int64: Int64] = [:], diaryOwners: [Int64: ImportPlan.DiaryOwner] = [:], largestID: Int64)
        throws -> ImportPlan {
        try ImportPlan(
            entries, userID: 1, userName: "alice", lookedUp: ImportPlan.LookedUp(entryOwners: entryOwners, diaryOwners: diaryOwners),
            largestID: largestID, now: now
        )
    }

    @Test func idsAboveEveryOneGivenOutAreKeptAndOthersAreNew() throws {
        let plan = try plan([imported(20), imported(3), imported(10)], entryOwners: [3: 2], largestID: 10)
        #expect(plan.inserts.map(\.entry.id) == [11, 12, 20])
        #expect(plan.inserts.map(\.keepsID) == [false, false, true])
        let kept = try self.plan([imported(12), imported(3)], entryOwners: [3: 2], largestID: 5)
        #expect(kept.inserts.map(\.entry.id) == [6, 12])
        #expect(kept.inserts.map(\.keepsID) == [false, true])
    }

    /// An id the plan itself gives out is the caller's from then on: an entry exported with that
    /// id is skipped, as the engines' sequential lookups skipped it.
    @Test func theCallersEntriesAreSkippedIncludingOnesJustPlanned() throws {
        let plan = try plan([imported(5), imported(6), imported(4)], entryOwners: [4: 1, 5: 2], largestID: 5)
        #expect(plan.skipped == 2)
        #expect(plan.inserts.map(\.entry.id) == [6])
        #expect(plan.result == ImportResult(created: 1, skipped: 2))
    }

    @Test func aMissingDiaryIsCreatedOnceDatedByAPublicFirstEntryOnly() throws {
        let plan = try plan([imported(2, diary: 9, .private), imported(3, diary: 9), imported(4, diary: 8)], largestID: 0)
        #expect(plan.inserts.map(\.newDiary) == [
            ImportPlan.NewDiary(title: "alice's diary", since: now), nil, ImportPlan.NewDiary(title: "alice's diary", since: then),
        ])
        #expect(plan.inserts.map(\.visibility) == [.private, .public, .public])
        #expect(plan.touched == [
            ImportPlan.DiaryAdditions(diaryID: 8, entries: 1, publicEntries: 1), ImportPlan.DiaryAdditions(diaryID: 9, entries: 2, publicEntries: 1),
        ])
    }

    @Test func anotherAuthorOrAnotherUsersDiaryIsForbidden() throws {
        #expect(throws: StoreError(.forbidden, .entryByAuthor(2, author: "bob"))) { try plan([imported(2, author: "bob")], largestID: 0) }
        let bobs = ImportPlan.DiaryOwner(ownerID: 2, defaultVisibility: .public)
        #expect(throws: StoreError(.forbidden, .diary(1))) { try plan([imported(2)], diaryOwners: [1: bobs], largestID: 0) }
        let own = ImportPlan.DiaryOwner(ownerID: 1, defaultVisibility: .unlisted)
        #expect(try plan([imported(2)], diaryOwners: [1: own], largestID: 0).inserts.map(\.visibility) == [.unlisted])
    }
}
