import DiaryAPI
import DiaryStore
@testable import DiarySQLiteStore
import Foundation
import StoreKernel
import StoreTestSupport
import Testing

/// The list queries walk SQLite's indexes in the API's order: no sort of all entries per request.
@Suite struct QueryPlanTests {
    /// The listing queries walk the indexes in the API's order: no sort of all entries per request.
    @Test func listingsUseTheOrderedIndexes() throws {
        try withStore { store, _ in
            let all = try store.queryPlan("\(SQLiteDiaryStore.entryColumns) \(SQLiteDiaryStore.newestFirst)", arguments: [20, 0])
            #expect(all.contains { $0.contains("entries_newest_first") }, "\(all)")
            #expect(!all.contains { $0.contains("TEMP B-TREE") }, "\(all)")

            let one = try store.queryPlan("\(SQLiteDiaryStore.entryColumns) WHERE e.diary_id = ? \(SQLiteDiaryStore.newestFirst)", arguments: [1, 20, 0])
            #expect(one.contains { $0.contains("entries_by_diary_newest_first") }, "\(one)")
            #expect(!one.contains { $0.contains("TEMP B-TREE") }, "\(one)")
        }
    }

    /// An export's batch walks the primary key from the last id it sent, for the owner's
    /// entries as for the public ones. Through the owner's diaries instead, every batch read and
    /// sorted all of the owner's entries: 1.7 s a batch at a million entries, past the budget.
    @Test func exportBatchesWalkThePrimaryKeyFromTheLastID() throws {
        try withStore { store, _ in
            for ownerID: Int64? in [nil, 1] {
                let batch = EntryListSQL.exportBatch(afterID: 100, limit: 500, ownerID: ownerID, dialect: SQLiteEntryDialect.self).sqlite
                let plan = try store.queryPlan(batch.sql, arguments: ownerID.map { [100, $0, 500] } ?? [100, 500])
                #expect(plan.first == "SEARCH e USING INTEGER PRIMARY KEY (rowid>?)", "\(plan)")
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
            }
        }
    }

    @Test func cursorPagesSeekOnTheIndex() throws {
        try withStore { store, _ in
            for diaryID: Int64? in [nil, 1] {
                let plan = try store.queryPlan(for: EntryQuery(
                    diaryID: diaryID, position: .after(created: Date(timeIntervalSince1970: 1_800_000_000), id: 5_000)
                ))
                #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
                #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
                #expect(plan.contains { $0.contains("SEARCH e USING") && $0.contains("newest_first") }, "\(plan)")
            }
        }
    }

    /// A tag on many entries walks its own rows newest first, in the index that carries their
    /// entries' dates and visibility (schema v9), so that its page stops once full and only the
    /// page's entries are looked up; its count reads that index alone.
    @Test func aTagWalksItsRowsNewestFirst() throws {
        try withStore { store, _ in
            for viewerID: Int64? in [nil, 1] {
                let query = EntryQuery(filter: EntryFilter(tags: ["daily"]), viewerID: viewerID)
                let walk = try store.queryPlan(for: query, walking: true)
                #expect(walk.contains { $0.contains("SEARCH e USING COVERING INDEX entry_tags_newest_first (tag=?)") }, "\(walk)")
                #expect(walk.contains { $0.contains("SEARCH e USING INTEGER PRIMARY KEY (rowid=?)") }, "\(walk)")
                // Only the page's rows are sorted, for the columns read once they are known.
                #expect(walk.filter { $0.contains("TEMP B-TREE") }.count == 1, "\(walk)")
                let count = try store.queryPlan(for: query, count: true)
                #expect(count.contains { $0.contains("SEARCH e USING COVERING INDEX entry_tags_newest_first (tag=?)") }, "\(count)")
                // Not built first into a list of every entry holding the tag.
                #expect(count.filter { $0.contains("entry_tags") }.count == 1, "\(count)")
            }
        }
    }
}
