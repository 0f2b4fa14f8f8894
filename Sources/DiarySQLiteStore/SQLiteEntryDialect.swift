import DiaryAPI
import GRDB
import StoreKernel

/// How SQLite's store writes what `EntryListSQL` leaves to the engine.
///
/// Terms of 3 or more characters go to the FTS5 trigram indexes, each quoted as an FTS5 string
/// (so no text can be FTS5 syntax). Public entries are indexed in `entries_fts`, the others in
/// `entries_private_fts`: the statistics bm25 ranks by (how many entries hold a term, their
/// average length) then come from public entries only, and nobody's ranking moves with
/// another's private text. Terms of one or two characters (Unicode scalars), which trigrams
/// cannot hold, go to `entries_grams` (schema-v3.sql), which never ranks; what is left (two
/// characters of three or more scalars, such as a letter and a combining accent) is scanned.
///
/// An all-ASCII term the store narrowed by the chunk index (schema v8, `TermSearch.narrowings`)
/// is not searched in the trigram indexes for the count and the newest-first pages: its
/// condition is the entries the chunks found, checked for a phrase. A ranked page still
/// matches every indexed term in `entries_fts`, which bm25 scores by.
enum SQLiteEntryDialect: EntrySQLDialect {
    static let entryColumns = SQLiteDiaryStore.entryColumns
    static let noRow = "0"

    /// `all_tags` holds the entry's tags between commas (",daily,food,"), which no tag holds.
    static func carriesTag(_ tag: String, row: String) -> SQLFragment {
        "instr(\(sql: row).all_tags, \(",\(tag),")) > 0"
    }

    static func termConditions(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment] {
        // When `entries_grams` drives (no trigram term, or its short terms lead), it holds the
        // short terms and the trigram terms are probed entry by entry; so are they when a
        // narrowed term's entries drive (`narrowedRows`). Else the trigram index drives and the
        // short terms are scanned, as `indexProbe` walks with the scans.
        let led = gramsLead(search)
        let scanned = search.terms.filter { !search.isIndexed($0) && (!isGram($0) || !led) }.map(scan)
        let leads = search.shortTermsLead || narrowedRows(search) != nil
        let probed = leads ? trigramSearched(search).map { trigramProbe($0, viewerID: viewerID) } : []
        return narrowedConditions(search, viewerID: viewerID) + scanned + probed
    }

    /// The entries a narrowed term's chunks found, as rows a count starts from, when no short
    /// term leads: then the other indexed terms are checked in each of those entries (as a
    /// walk checks them), not matched in the trigram index. Started from `coffee`'s trigram
    /// matches, `zanzibar coffee` looked up each of 970,000 entries in `zanzibar`'s (1.5 s).
    static func narrowedRows(_ search: TermSearch) -> SQLFragment? {
        gramsLead(search) ? nil : search.narrowingRows
    }

    /// The indexed terms the trigram indexes search: those the store did not narrow by chunks.
    static func trigramSearched(_ search: TermSearch) -> [String] {
        search.indexed.filter { search.narrowings[$0] == nil }
    }

    /// Each narrowed term's condition: the entries its chunks found, and for a phrase, which
    /// those chunks do not hold, its check in each. First among the term conditions: a lookup
    /// in the gathered ids, where the others read the text.
    static func narrowedConditions(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment] {
        var seen = Set<String>()
        return search.indexed.compactMap { term in
            guard let narrowing = search.narrowings[term], seen.insert(term).inserted else { return nil }
            guard !narrowing.holdsTerm else { return "(\(narrowing.condition))" }
            return "(\(narrowing.condition) AND \(trigramProbe(term, viewerID: viewerID)))"
        }
    }

    /// The narrowed terms' conditions, first among `termConditions`: a look-up of the entry's id
    /// among those the chunks found (and, for a phrase, a check of its text after it), which
    /// costs less than a tag's probe. Asked after the tag, the walk newest first of `kashaquamo`
    /// with the tag `daily` (in 1.2 % and 32 % of a million entries) took 22 ms against 18.
    static func leadingLookUps(_ search: TermSearch) -> Int {
        narrowedConditions(search, viewerID: nil).count
    }

    /// Whether `entries_grams` finds the rows a search counts and gathers: no term is long
    /// enough for the trigram indexes, or the store found its short terms the rarer
    /// (`TermSearch.shortTermsLead`).
    static func gramsLead(_ search: TermSearch) -> Bool {
        search.indexed.isEmpty || search.shortTermsLead
    }

    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? {
        // Narrowed: each term's condition is in `termConditions`.
        guard narrowedRows(search) == nil else { return nil }
        guard !gramsLead(search), let match = ftsQuery(search) else {
            // Short terms lead: the entries their index holds, gathered, lead the list.
            return gramQuery(search).map { "e.entry_id IN (SELECT rowid FROM entries_grams WHERE entries_grams MATCH \($0))" }
        }
        return viewerID == nil ? publicMatch(match) : "(\(publicMatch(match)) OR \(privateMatch(match)))"
    }

    static func rankedPage(_ search: TermSearch, filters: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        let match = rankedQuery(search)
        // Without the narrowed terms' conditions, and the probes of the other terms that a
        // narrowing brings (`narrowedRows`): the match holds every term already, and the page's
        // cost is bm25's passes, which no condition shortens.
        let unnarrowed = TermSearch(search.terms, shortestIndexed: shortestIndexedTerm, shortTermsLead: search.shortTermsLead)
        let conditions = filters + termConditions(unnarrowed, viewerID: viewerID)
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
        // words of everyone's private entries, which share their index. Each half starts from
        // its index's matches, so that a rare term reads its few matches, not every entry.
        let listed = conditions.joined(separator: " AND ")
        return """
            SELECT * FROM (
            \(sql: SQLiteDiaryStore.entrySelectList), p.score AS score
            FROM (SELECT rowid, bm25(entries_fts) AS score FROM entries_fts WHERE entries_fts MATCH \(match)) p
            JOIN entries e ON e.entry_id = p.rowid \(sql: SQLiteDiaryStore.entryJoins) WHERE \(listed)
            UNION ALL
            \(sql: SQLiteDiaryStore.entrySelectList), NULL
            FROM (SELECT rowid FROM entries_private_fts WHERE entries_private_fts MATCH \(match)) q
            JOIN entries e ON e.entry_id = q.rowid \(sql: SQLiteDiaryStore.entryJoins) WHERE \(listed))
            ORDER BY score IS NOT NULL, CASE WHEN score IS NULL THEN created END DESC, score, entry_id DESC \(window)
            """
    }

    /// The ids as one JSON array: one statement whatever their number, which GRDB's cache keeps.
    static func isOneOf(_ ids: [Int64]) -> SQLFragment {
        "e.entry_id IN (SELECT value FROM json_each(\(jsonArray(ids))))"
    }

    /// `ids` as a JSON array, one value that `json_each` reads back.
    static func jsonArray(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }

    static func matchingRows(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? {
        if let rows = narrowedRows(search) { return rows }
        let reads = matchingIndexes(search, viewerID: viewerID).map { (table: String, match: String) -> SQLFragment in
            "SELECT rowid FROM \(sql: table) WHERE \(sql: table) MATCH \(match)"
        }
        return reads.isEmpty ? nil : "(\(reads.joined(separator: " UNION ALL ")))"
    }

    /// The FTS5 indexes whose matches of `search` are its rows, with each one's query: the
    /// short terms' (`entries_grams`) where they lead or no term is long enough, else the
    /// trigram terms' public index and, for a viewer, the private one. Each entry is in one of
    /// those two: no row comes twice. None without such terms.
    static func matchingIndexes(_ search: TermSearch, viewerID: Int64?) -> [(table: String, match: String)] {
        guard !gramsLead(search), let match = ftsQuery(search) else {
            return gramQuery(search).map { [("entries_grams", $0)] } ?? []
        }
        return [("entries_fts", match)] + (viewerID == nil ? [] : [("entries_private_fts", match)])
    }

    /// Each FTS5 index's rows (the public and the private index for a viewer, as
    /// `matchingRows`), joined to their entries, highest rowid first, merged: FTS5 reads a
    /// match's rows from the highest as cheaply as from the lowest. Written as one subquery of
    /// the count, the order was dropped or the rows sorted whole. `coffee` since 2038 (the last
    /// 52,000 of a million entries) read 950,000 rows lowest first before the range: 773 ms.
    static func matchingRowsNewestFirst(_ search: TermSearch, viewerID: Int64?, checked: SQLFragment, window: SQLFragment) -> SQLFragment? {
        guard narrowedRows(search) == nil else { return nil }
        let reads = matchingIndexes(search, viewerID: viewerID).map { (table: String, match: String) -> SQLFragment in
            "SELECT m.rowid FROM \(sql: table) m JOIN entries e ON e.entry_id = m.rowid WHERE \(sql: table) MATCH \(match) AND \(checked)"
        }
        return reads.isEmpty ? nil : "\(reads.joined(separator: " UNION ALL ")) ORDER BY 1 DESC \(window)"
    }

    static func indexProbe(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment]? {
        // Led by the trigram terms, the short terms' scans are in `termConditions` already;
        // led by the short terms, the trigram terms' probes are.
        guard !gramsLead(search) else { return gramProbes(search) }
        // Narrowed, the other terms' probes are in `termConditions` already.
        guard narrowedRows(search) == nil else { return [] }
        return trigramSearched(search).map { trigramProbe($0, viewerID: viewerID) }
    }

    /// Whether entry `e` holds `term`, as the trigram index the viewer may search finds it.
    static func trigramProbe(_ term: String, viewerID: Int64?) -> SQLFragment {
        let match = ftsString(term)
        let publicProbe: SQLFragment = "EXISTS (SELECT 1 FROM entries_fts WHERE entries_fts MATCH \(match) AND rowid = e.entry_id)"
        let probe: SQLFragment = viewerID == nil ? publicProbe : """
            (\(publicProbe) OR EXISTS (SELECT 1 FROM entries_private_fts WHERE entries_private_fts MATCH \(match) AND rowid = e.entry_id))
            """
        // A column that holds the term folded (`TrigramFold`) with LIKE's fold, A–Z alone,
        // holds it as the trigram tokenizer folds, so the entry matches without the probe, which
        // cost 300 µs an entry for "coffee" at a million entries. LIKE does not copy the text:
        // `instr(lower(…))` took three times as long as LIKE over 20,000 entries of a million
        // (about 1 KB each; 146 against 40–50 ms).
        let pattern = LikePattern.containing(TrigramFold.folded(term) ?? term)
        let holds: SQLFragment = "e.title LIKE \(pattern) ESCAPE '\\' OR e.body LIKE \(pattern) ESCAPE '\\'"
        guard let signs = TrigramFold.signs(foldedInto: term) else { return "(\(holds) OR \(probe))" }
        // One that does not hold it so may still hold it as the tokenizer folds only where it
        // holds a sign the tokenizer folds into one of the term's letters (É into é, KELVIN
        // SIGN into k); only such an entry is probed. A probe of an entry that does not hold the
        // term cost 2.5 ms for "kashaquamo" at a million entries, whose walk newest first probed
        // 2,000 such entries for a page (5 s); `zanzibar café` probed each of zanzibar's 520
        // matches without café (85 ms newest first, 349 ranked).
        guard !signs.isEmpty else { return "(\(holds))" }
        let holdsSign = signs.map { (sign: String) -> SQLFragment in "instr(e.title, \(sign)) > 0 OR instr(e.body, \(sign)) > 0" }
        return "(\(holds) OR ((\(holdsSign.joined(separator: " OR "))) AND \(probe)))"
    }
}

// MARK: - The terms in FTS5 queries

extension SQLiteEntryDialect {
    /// The FTS5 query of the terms the trigram indexes search (`trigramSearched`), all of them
    /// required, or nil without one.
    static func ftsQuery(_ search: TermSearch) -> String? {
        let terms = trigramSearched(search)
        return terms.isEmpty ? nil : terms.map(ftsString).joined(separator: " AND ")
    }

    /// The FTS5 query a ranked page matches and bm25 scores: every indexed term, narrowed or not.
    static func rankedQuery(_ search: TermSearch) -> String {
        search.indexed.map(ftsString).joined(separator: " AND ")
    }

    /// `term` as an FTS5 string: no text in it is FTS5 syntax.
    static func ftsString(_ term: String) -> String {
        "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func publicMatch(_ match: String) -> SQLFragment {
        "e.entry_id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH \(match))"
    }

    static func privateMatch(_ match: String) -> SQLFragment {
        "e.entry_id IN (SELECT rowid FROM entries_private_fts WHERE entries_private_fts MATCH \(match))"
    }

    /// Whether `entries_grams` finds `term`: one or two Unicode scalars (the tokenizer's
    /// tokens), and no NUL (nothing holds one).
    static func isGram(_ term: String) -> Bool {
        (1...2).contains(term.unicodeScalars.count) && !term.contains("\0")
    }

    /// The terms `entries_grams` finds (those the trigram indexes cannot), deduplicated.
    static func gramTerms(_ search: TermSearch) -> [String] {
        var seen = Set<String>()
        return search.terms.filter { !search.isIndexed($0) && isGram($0) && seen.insert($0).inserted }
    }

    /// The FTS5 query of the short terms, all of them required, or nil without one.
    static func gramQuery(_ search: TermSearch) -> String? {
        let terms = gramTerms(search)
        return terms.isEmpty ? nil : terms.map(ftsString).joined(separator: " AND ")
    }

    /// Each short term as a check on entry `e`, for a walk newest first that stops once its
    /// page is full, however many entries hold the term: the scan `entries_grams` stands for
    /// (`CharacterGramTokenizer` finds exactly the entries it finds), which reads one entry's
    /// text (about 1 µs for 1 KB). A seek by id in `entries_grams` gave the same answer at
    /// about 8 million instructions a probe: a page of 京都, in a fifth of a million entries,
    /// took 150 ms so.
    static func gramProbes(_ search: TermSearch) -> [SQLFragment] {
        gramTerms(search).map(scan)
    }

    /// Whether entry `e` holds `term`, ASCII letters folded, read in its text.
    static func scan(_ term: String) -> SQLFragment {
        "instr(lower(e.title || ' ' || e.body), lower(\(term))) > 0"
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
