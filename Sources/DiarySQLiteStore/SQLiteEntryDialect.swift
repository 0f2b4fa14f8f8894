import DiaryAPI
import GRDB
import StoreKernel

/// How SQLite's store writes what `EntryListSQL` leaves to the engine.
///
/// Terms of 3 or more characters go to the FTS5 trigram indexes, each quoted as an FTS5 string
/// (so no text can be FTS5 syntax); shorter ones, which trigrams cannot hold, are scanned.
/// Public entries are indexed in `entries_fts`, the others in `entries_private_fts`: the
/// statistics bm25 ranks by (how many entries hold a term, their average length) then come
/// from public entries only, and nobody's ranking moves with another's private text.
enum SQLiteEntryDialect: EntrySQLDialect {
    static let entryColumns = SQLiteDiaryStore.entryColumns
    static let noRow = "0"

    static func termConditions(_ search: TermSearch) -> [SQLFragment] {
        search.terms.filter { !search.isIndexed($0) }.map { term in
            "instr(lower(e.title || ' ' || e.body), lower(\(term))) > 0"
        }
    }

    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? {
        guard let match = ftsQuery(search) else { return nil }
        return viewerID == nil ? publicMatch(match) : "(\(publicMatch(match)) OR \(privateMatch(match)))"
    }

    static func rankedPage(_ search: TermSearch, conditions: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        let match = ftsQuery(search) ?? ""
        guard viewerID != nil else {
            return """
                \(sql: SQLiteDiaryStore.entrySelectList) FROM entries_fts JOIN entries e ON e.entry_id = entries_fts.rowid \
                \(sql: SQLiteDiaryStore.entryJoins)
                WHERE entries_fts MATCH \(match) AND \(conditions.joined(separator: " AND "))
                ORDER BY bm25(entries_fts), e.entry_id DESC \(window)
                """
        }
        // The viewer's own unlisted and private matches first, newest first, then public ones
        // by relevance: ranked together, the order of the viewer's own would move with the
        // words of everyone's private entries, which share their index.
        return """
            \(sql: SQLiteDiaryStore.entrySelectList) FROM entries e \(sql: SQLiteDiaryStore.entryJoins)
            LEFT JOIN (SELECT rowid, bm25(entries_fts) AS score FROM entries_fts WHERE entries_fts MATCH \(match)) p ON p.rowid = e.entry_id
            WHERE \(conditions.joined(separator: " AND ")) AND (p.rowid IS NOT NULL OR \(privateMatch(match)))
            ORDER BY p.score IS NOT NULL, CASE WHEN p.score IS NULL THEN e.created END DESC, p.score, e.entry_id DESC \(window)
            """
    }

    /// The FTS5 query of the indexed terms, all of them required, or nil without one.
    static func ftsQuery(_ search: TermSearch) -> String? {
        search.indexed.isEmpty ? nil : search.indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")
    }

    static func publicMatch(_ match: String) -> SQLFragment {
        "e.entry_id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH \(match))"
    }

    static func privateMatch(_ match: String) -> SQLFragment {
        "e.entry_id IN (SELECT rowid FROM entries_private_fts WHERE entries_private_fts MATCH \(match))"
    }
}

extension SQLFragment {
    /// The statement's text with `?` placeholders and its arguments, for GRDB.
    var sqlite: (sql: String, arguments: StatementArguments) {
        let (sql, values) = rendered { _ in "?" }
        return (sql, StatementArguments(values.map(\.databaseValue)))
    }
}

extension SQLValue {
    /// The value as SQLite keeps it: a date as its RFC 3339 text.
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .date(let date): RFC3339.string(from: date).databaseValue
        case .null: .null
        }
    }
}
