import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

/// Scheduled posts (`EntrySchedule` in StoreKernel): the next time one falls due, and their
/// publication, which the triggers on `entries.visibility` follow as they follow any write
/// (public counts, the public full-text index, the change feed).
extension SQLiteDiaryStore {
    public func nextPublication() throws(StoreError) -> Date? {
        try read(.operation("next scheduled publication")) { db in
            // `entries_scheduled`, partial: one probe.
            let statement = try db.cachedStatement(sql: "SELECT min(created) FROM entries WHERE scheduled_visibility IS NOT NULL")
            return try String.fetchOne(statement).map { try Self.date($0, column: "entries.created") }
        }
    }

    public func publishDue(at now: Date) throws(StoreError) -> Int {
        try write(.operation("scheduled publications")) { db in
            let due = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT entry_id, diary_id, created, scheduled_visibility FROM entries
                WHERE scheduled_visibility IS NOT NULL AND created <= ?
                """), arguments: [RFC3339.string(from: Self.wholeSeconds(now))])
            let publish = try db.cachedStatement(sql: """
                UPDATE entries SET visibility = scheduled_visibility, scheduled_visibility = NULL, updated = max(updated, created)
                WHERE entry_id = ?
                """)
            // Its diary changed at the entry's time, for everyone when it is public: the time it
            // appeared, the same whichever server publishes it and however late.
            let touch = try db.cachedStatement(sql: """
                UPDATE diaries SET updated = max(updated, ?1), public_updated = CASE WHEN ?2 THEN max(public_updated, ?1) ELSE public_updated END
                WHERE diary_id = ?3
                """)
            for row in due {
                let (id, diaryID, created, visibility): (Int64, Int64, String, String) = (row[0], row[1], row[2], row[3])
                try publish.execute(arguments: [id])
                try touch.execute(arguments: [created, visibility == Visibility.public.rawValue, diaryID])
            }
            return due.count
        }
    }
}
