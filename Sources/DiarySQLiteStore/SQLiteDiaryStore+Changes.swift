import DiaryAPI
import DiaryStore
import GRDB
import StoreKernel

extension SQLiteDiaryStore {
    public func changes(since: ChangeCursor?, viewerID: Int64?, limit: Int) throws(StoreError) -> ChangePage {
        try read(.operation("changes")) { db in
            try ChangeFeed.page(
                since: since, viewerID: viewerID, limit: limit,
                horizon: { audience in
                    try Int64.fetchOne(
                        db.cachedStatement(sql: "SELECT horizon FROM change_sequences WHERE audience = ?"), arguments: [audience]
                    ) ?? 0
                },
                rows: { audience, after, limit in try Self.changeRows(db, audience: audience, after: after, limit: limit) }
            )
        }
    }

    /// An audience's rows after `after`, in order, each with its entry as it is now (its
    /// columns NULL when deleted) and the entry's owner.
    static func changeRows(_ db: Database, audience: Int64, after: Int64, limit: Int) throws -> [ChangeFeed.Row] {
        let statement = try db.cachedStatement(sql: """
            \(entrySelectList), c.position AS change_position, c.entry_id AS change_entry_id, d.user_id AS change_owner
            FROM entry_changes c LEFT JOIN entries e ON e.entry_id = c.entry_id LEFT JOIN diaries d ON d.diary_id = e.diary_id
            LEFT JOIN users u ON u.user_id = d.user_id
            WHERE c.audience = ? AND c.position > ? ORDER BY c.position LIMIT ?
            """)
        // The change's own columns by name: `entrySelectList` may grow without moving them.
        return try Array(Row.fetchCursor(statement, arguments: [audience, after, limit]).map { row in
            let owner: Int64? = try row.decode(forColumn: "change_owner")
            return try ChangeFeed.Row(
                position: row.decode(forColumn: "change_position"), entryID: row.decode(forColumn: "change_entry_id"),
                entry: owner != nil ? entry(from: row) : nil, ownerID: owner
            )
        })
    }
}

extension SQLiteDiaryStore {
    /// Sets how many tombstones each audience of the change feed keeps (from the next one
    /// made): fewer keep the table small, more let a replica stay away longer without a 410.
    public func setTombstonesKept(_ count: Int) throws(StoreError) {
        try write(.setting("tombstones_kept")) { db in
            try db.execute(sql: "UPDATE change_retention SET tombstones_kept = ?", arguments: [max(1, count)])
        }
    }
}
