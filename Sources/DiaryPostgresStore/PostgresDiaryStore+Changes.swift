import DiaryAPI
import DiaryStore
import PostgresNIO
import StoreKernel

extension PostgresDiaryStore {
    /// One REPEATABLE READ snapshot: the counters' locks make positions follow commit order
    /// (`postgres-v6.sql`), so a page read in a snapshot holding position N holds all below it.
    public func changes(since: ChangeCursor?, viewerID: Int64?, limit: Int) throws(StoreError) -> ChangePage {
        try read(.operation("changes")) { session in
            try ChangeFeed.page(
                since: since, viewerID: viewerID, limit: limit,
                horizon: { audience in
                    try session.one((Int64).self, "SELECT horizon FROM change_sequences WHERE audience = $1", [audience]) ?? 0
                },
                rows: { audience, after, limit in try Self.changeRows(session, audience: audience, after: after, limit: limit) }
            )
        }
    }

    /// An audience's rows after `after`, in order, each with its entry as it is now (nil when
    /// deleted) and the entry's owner, in one statement: the change's columns first, then the
    /// entry's (NULL when deleted), decoded only when the entry is there.
    static func changeRows(_ session: SQLSession, audience: Int64, after: Int64, limit: Int) throws -> [ChangeFeed.Row] {
        try session.query("""
            SELECT c.position, c.entry_id, d.user_id, \(entryColumnList)
            FROM entry_changes c LEFT JOIN entries e ON e.entry_id = c.entry_id LEFT JOIN diaries d ON d.diary_id = e.diary_id
            LEFT JOIN users u ON u.user_id = d.user_id
            WHERE c.audience = $1 AND c.position > $2 ORDER BY c.position LIMIT $3
            """, [audience, after, Int64(limit)]).map { row in
            let (position, entryID, ownerID) = try row.decode((Int64, Int64, Int64?).self)
            let entry = try ownerID == nil ? nil : Self.entry(from: row.skipping(changeColumns))
            return ChangeFeed.Row(position: position, entryID: entryID, entry: entry, ownerID: ownerID)
        }
    }

    /// How many of the change's own columns come before the entry's in `changeRows`.
    private static let changeColumns = 3
}

extension PostgresDiaryStore {
    /// Sets how many tombstones each audience of the change feed keeps (from the next one
    /// made): fewer keep the table small, more let a replica stay away longer without a 410.
    public func setTombstonesKept(_ count: Int) throws(StoreError) {
        try write(.setting("tombstones_kept")) { session in
            _ = try session.execute("UPDATE change_retention SET tombstones_kept = $1", [Int64(max(1, count))])
        }
    }
}
