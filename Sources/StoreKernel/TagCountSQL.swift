/// `GET /api/tags` as both engines ask it, of the counts their schemas keep (SQLite v10,
/// PostgreSQL v13): the tags `viewerID` may list entries of, with how many.
///
/// `EntryAccess.listable` lets anyone list a public entry and the owner all of theirs, so a
/// viewer's count of a tag is its public entries (`tag_public_counts`) plus, for a viewer, the
/// entries of their own diaries that are not public (`tag_hidden_counts`), named `e` so that
/// the engine's `inDiaryOf` applies as written. Each table may hold several rows of one count
/// (PostgreSQL splits each over 16 slots) and rows of counts back at 0: the sums decide.
public enum TagCountSQL {
    /// The tags and their counts, in no order: an engine sorts them as the API does.
    public static func counts<Dialect: EntrySQLDialect>(seenBy viewerID: Int64?, dialect: Dialect.Type) -> SQLFragment {
        let own: SQLFragment = viewerID.map { viewerID in
            " UNION ALL SELECT e.tag, e.entry_count FROM tag_hidden_counts e WHERE \(Dialect.inDiaryOf(viewerID))"
        } ?? ""
        return """
            SELECT c.tag, sum(c.entry_count) FROM (SELECT tag, entry_count FROM tag_public_counts\(own)) c
            GROUP BY c.tag HAVING sum(c.entry_count) > 0
            """
    }
}

extension TagCountSQL {
    /// How many entries hold each of `tags` (no row for a tag on none), whoever may list them,
    /// and in a row whose tag is NULL `entries`, the engine's count of every entry: what a
    /// plan weighs tags by (`TagSizes`), read from the kept counts in a few rows and one round
    /// trip, where counting a tag's rows up to 20,000 read as many.
    public static func sizes(of tags: [String], entries: SQLFragment) -> SQLFragment {
        let asked = tags.map { tag -> SQLFragment in "\(tag)" }.joined(separator: ", ")
        return """
            SELECT c.tag, sum(c.entry_count) FROM (SELECT tag, entry_count FROM tag_public_counts WHERE tag IN (\(asked)) \
            UNION ALL SELECT tag, entry_count FROM tag_hidden_counts WHERE tag IN (\(asked))) c GROUP BY c.tag \
            UNION ALL \(entries)
            """
    }
}
