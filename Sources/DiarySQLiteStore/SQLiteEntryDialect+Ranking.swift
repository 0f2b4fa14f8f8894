import DiaryAPI
import StoreKernel

/// Relevance order on SQLite, within a bounded window: bm25 scores the newest
/// `EntryPage.countedMatches` matches (by entry id, which FTS5 walks backwards without a sort)
/// that the list's conditions keep, not every match. Scoring all 970,000 entries that hold a
/// common word took 2.7 s at 1,000,000 entries; the window's cost does not grow with the diary.
/// A search finding fewer matches ranks all of them, as before.
extension SQLiteEntryDialect {
    static func rankedPage(_ search: TermSearch, conditions: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        let match = ftsQuery(search) ?? ""
        let publicWindow = scoredWindow("entries_fts", match: match, conditions: conditions, scored: true)
        guard viewerID != nil else {
            return """
                \(sql: SQLiteDiaryStore.entrySelectList) FROM \(publicWindow) r JOIN entries e ON e.entry_id = r.id \
                \(sql: SQLiteDiaryStore.entryJoins)
                ORDER BY r.score, e.entry_id DESC \(window)
                """
        }
        // The viewer's own unlisted and private matches first, newest first, then public ones
        // by relevance: ranked together, the order of the viewer's own would move with the
        // words of everyone's private entries, which share their index.
        let privateWindow = scoredWindow("entries_private_fts", match: match, conditions: conditions, scored: false)
        return """
            \(sql: SQLiteDiaryStore.entrySelectList) FROM (SELECT * FROM \(privateWindow) UNION ALL SELECT * FROM \(publicWindow)) r \
            JOIN entries e ON e.entry_id = r.id \(sql: SQLiteDiaryStore.entryJoins)
            ORDER BY r.score IS NOT NULL, CASE WHEN r.score IS NULL THEN e.created END DESC, r.score, e.entry_id DESC \(window)
            """
    }

    /// The newest `EntryPage.countedMatches` entries of `index` that `match` finds and the
    /// conditions keep, with their bm25 score (or NULL), as a subquery of `id` and `score`.
    static func scoredWindow(_ index: String, match: String, conditions: [SQLFragment], scored: Bool) -> SQLFragment {
        let score = scored ? "bm25(\(index))" : "NULL"
        return """
            (SELECT e.entry_id AS id, \(sql: score) AS score FROM \(sql: index) JOIN entries e ON e.entry_id = \(sql: index).rowid \
            WHERE \(sql: index) MATCH \(match) AND \(conditions.joined(separator: " AND ")) \
            ORDER BY \(sql: index).rowid DESC LIMIT \(EntryPage.countedMatches))
            """
    }
}
