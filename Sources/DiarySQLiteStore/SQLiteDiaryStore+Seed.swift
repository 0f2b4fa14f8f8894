import DiaryAPI
import DiaryStore
import Foundation
import GRDB

extension SQLiteDiaryStore {
    /// Writes many entries fast: `batchSize` per transaction, one prepared statement, none of
    /// `createEntry`'s per-entry lookups. The entries are public, with their tags. The schema still checks every row
    /// (an unknown diary fails its batch, which is rolled back); the triggers keep the counts, and
    /// each diary's `updated` moves forward to its newest entry. Batches already written stay written.
    ///
    /// - returns: the number of entries written.
    @discardableResult
    public func insertEntries(_ entries: some Sequence<SeedEntry>, batchSize: Int = 10_000) throws(StoreError) -> Int {
        try entries.writeInBatches(of: batchSize, insertBatch)
    }

    private func insertBatch(_ batch: [SeedEntry]) throws(StoreError) -> Int {
        try write(.operation("\(batch.count) seeded entries")) { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO entries (diary_id, title, body, created, updated) VALUES (?, ?, ?, ?, ?)
                """)
            let tag = try db.cachedStatement(sql: Self.insertTagSQL)
            var newest: [Int64: String] = [:]
            for entry in batch {
                let created = RFC3339.string(from: entry.created)
                insert.setUncheckedArguments([entry.diaryID, entry.title, entry.body, created, created])
                try insert.execute()
                let entryID = db.lastInsertedRowID
                for name in entry.tags {
                    try tag.execute(arguments: [entryID, name])
                }
                if newest[entry.diaryID].map({ $0 < created }) ?? true {
                    newest[entry.diaryID] = created
                }
            }
            let touch = try db.cachedStatement(sql: """
                UPDATE diaries SET updated = max(updated, ?1), public_updated = max(public_updated, ?1) WHERE diary_id = ?2
                """)
            for (diaryID, created) in newest {
                try touch.execute(arguments: [created, diaryID])
            }
            return batch.count
        }
    }
}
