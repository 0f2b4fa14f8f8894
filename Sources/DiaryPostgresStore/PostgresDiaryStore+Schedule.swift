import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO
import StoreKernel

/// Scheduled posts (`EntrySchedule` in StoreKernel): the next time one falls due, and their
/// publication, safe with several servers at once.
extension PostgresDiaryStore {
    public func nextPublication() throws(StoreError) -> Date? {
        try statement(.operation("next scheduled publication")) { session in
            // `entries_scheduled`, partial: one probe. One row, NULL when nothing is scheduled.
            let row: Date?? = try session.one((Date?).self, Self.nextPublicationSQL, [])
            return row.flatMap { $0 }
        }
    }

    static let nextPublicationSQL = PreparedSQL("SELECT min(created) FROM entries WHERE scheduled_visibility IS NOT NULL")

    public func publishDue(at now: Date) throws(StoreError) -> Int {
        try write(.operation("scheduled publications")) { session in
            let published: Int64? = try session.one((Int64).self, Self.publishDueSQL, [Self.wholeSeconds(now), session.slot])
            return Int(published ?? 0)
        }
    }

    /// Publishes the entries due at $1 and moves their diaries' kept counts and times (the rows
    /// of `diary_activity` for slot $2, as any write does: see `touchDiary`); answers how many.
    /// A diary changed at each entry's time, for everyone when it is public: the time it
    /// appeared, the same whichever server publishes it and however late. Several servers may
    /// run it at once: under READ COMMITTED, one that finds a row locked by another waits, then
    /// reads it again, finds it no longer scheduled and leaves it, so an entry is published and
    /// counted once. The change-feed trigger follows the change of `visibility`.
    static let publishDueSQL = PreparedSQL("""
        WITH due AS (
            UPDATE entries SET visibility = scheduled_visibility, scheduled_visibility = NULL, updated = greatest(updated, created)
            WHERE scheduled_visibility IS NOT NULL AND created <= $1::timestamptz
            RETURNING diary_id, created, visibility
        ), activity AS (
            INSERT INTO diary_activity AS a (diary_id, slot, entry_count, public_count, updated, public_updated)
            SELECT diary_id, $2::smallint, 0, (count(*) FILTER (WHERE visibility = 'public'))::integer, max(created),
                max(created) FILTER (WHERE visibility = 'public')
            FROM due GROUP BY diary_id
            ON CONFLICT (diary_id, slot) DO UPDATE SET \(addActivity)
        )
        SELECT count(*) FROM due
        """)
}
