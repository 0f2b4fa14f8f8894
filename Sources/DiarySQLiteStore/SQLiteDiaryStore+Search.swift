import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

// MARK: - Listing and search

extension SQLiteDiaryStore {
    public func entries(_ query: EntryQuery) throws(StoreError) -> EntryResults {
        try entries(query, narrowedByChunks: true)
    }

    /// `entries(_:)`, with the chunk index in front of the trigram indexes or without it (for
    /// tests, which hold both to the same answers).
    func entries(_ query: EntryQuery, narrowedByChunks: Bool) throws(StoreError) -> EntryResults {
        try read(query.subject) { db in
            let lookUp = narrowedByChunks ? try Self.chunkLookUp(db, terms: query.filter.terms) : ChunkLookUp()
            let sql = try Self.listSQL(db, query, lookUp, weighingLeaders: narrowedByChunks)
            // The count and the page come from the same read transaction: they agree.
            let matched = try Self.matches(db, query, sql)
            let total = sql.total(counted: matched.count)
            let reading = sql.reading(matches: matched.ids, dialect: SQLiteEntryDialect.self)
            let rows: [Entry]
            if reading.ranked, let ids = matched.ids, let order = try Self.relevanceOrder(db, ids: ids, search: sql.search, commonChunks: lookUp.commonChunks) {
                rows = try Self.entries(db, ids: Array(order.dropFirst(reading.offset).prefix(sql.limit + 1)))
            } else {
                let page = reading.page.sqlite
                // Decoded while SQLite steps through the rows: fetchAll would copy every value first.
                let cursor = try Row.fetchCursor(db.cachedStatement(sql: page.sql), arguments: page.arguments)
                rows = try Array(cursor.map(Self.entry(from:)))
            }
            return EntryResults(
                rows: rows, for: query, limit: sql.limit, offset: reading.offset, ranked: reading.ranked, total: total.total,
                totalIsEstimate: total.isEstimate
            )
        }
    }

    /// The statements of `query`, planned with what the indexes say of its terms: whether its
    /// short terms lead, what the chunk index narrows (`lookUp`), and, `weighingLeaders`,
    /// whether a tag leads the count (else the terms do, as the plain search that tests hold
    /// the planned one to).
    static func listSQL(_ db: Database, _ query: EntryQuery, _ lookUp: ChunkLookUp, weighingLeaders: Bool = true) throws -> EntryListSQL {
        let sizes = try tagSizes(db, query.filter.tags)
        let query = sizes?.rarestFirst(query) ?? query
        let shortTermsLead = try shortTermsLead(db, query)
        return EntryListSQL(
            query, dialect: SQLiteEntryDialect.self, shortTermsLead: shortTermsLead, narrowings: lookUp.narrowings,
            countLeader: try shortTermsLead || !weighingLeaders ? nil : countLeader(db, query, lookUp, sizes: sizes)
        )
    }

    /// The kept sizes of `tags` and of all entries (`TagSizes`); nil without tags.
    static func tagSizes(_ db: Database, _ tags: [String]) throws -> TagSizes? {
        guard !tags.isEmpty else { return nil }
        let sizes = TagCountSQL.sizes(of: tags, entries: "SELECT NULL, coalesce(sum(entry_count), 0) FROM diaries").sqlite
        return try TagSizes(rows: Row.fetchAll(db.cachedStatement(sql: sizes.sql), arguments: sizes.arguments).map { row in
            (row[0] as String?, try row.decode(atIndex: 1))
        })
    }

    /// `.firstTag` or `.dateRange` when the first tag or the date range of `query` leads its
    /// count (`TermSearch.countLeader`): the smaller of them holds fewer entries than
    /// `mostNarrowedEntries`, and its terms are in as many or more: each indexed term is too
    /// common for the chunks (`ChunkLookUp.common`), or one the chunks could not look up (not
    /// ASCII, or in too many chunks) whose public trigram matches, all the unlooked terms
    /// together, reach that number. Else nil, the terms' FTS rows leading. Led by the trigram
    /// matches of `night` (in 14 % of a million entries), each probed for the tag `night`
    /// (13,238 entries) until the count had its bound, a search of the word with the tag took
    /// 228–252 ms, and `coffee` with it 115–138; led by the tag, 53–68 and 14–17 ms. The
    /// leader's entries and the terms' public matches are counted whoever asks: the plan
    /// changes what the count costs, never what it finds.
    ///
    /// A search of short terms only (`entries_grams`) is weighed against its grams' entries,
    /// every one counted (`shortTermsOutnumber`). A list of tags without terms is led by the
    /// smaller of its first tag and its range, so that a diary's page of a rare tag reads the
    /// tag's rows (`EntryListSQL.tagWalk`), and a month of the entries of `daily`
    /// (317,183 of a million), 211 ms led by the tag and 10 s once its pages were out of the
    /// kernel's cache, is read from the range.
    static func countLeader(_ db: Database, _ query: EntryQuery, _ lookUp: ChunkLookUp, sizes known: TagSizes? = nil) throws -> CountLeader? {
        let search = TermSearch(query.filter.terms, shortestIndexed: SQLiteEntryDialect.shortestIndexedTerm)
        let sizes = try known ?? tagSizes(db, query.filter.tags)
        if search.terms.isEmpty {
            return query.filter.tags.isEmpty ? nil : try smallerOfTagAndRange(db, query.filter, sizes)?.0
        }
        // A narrowed term's few entries lead; without a chunk index (a replica's), nothing is
        // looked up for the longer terms.
        let shortOnly = search.indexed.isEmpty
        guard lookUp.narrowings.isEmpty, shortOnly ? !search.terms.isEmpty : !lookUp.indexed.isEmpty,
            let (leader, size) = try smallerOfTagAndRange(db, query.filter, sizes)
        else { return nil }
        guard !shortOnly else { return try shortTermsOutnumber(size, db, search) ? leader : nil }
        let unlooked = lookUp.indexed.subtracting(lookUp.common)
        guard !unlooked.isEmpty else { return leader }
        let match = unlooked.sorted().map(SQLiteEntryDialect.ftsString).joined(separator: " AND ")
        return try matchCount(db, in: "entries_fts", match, upTo: Int64(size)) >= size ? leader : nil
    }

    /// Of the tags of `filter` (led by the first, the others read in its rows) and its date
    /// range, the one on fewer entries, with their number, if it is under `mostNarrowedEntries`
    /// (whoever may list them): the tags' from their kept sizes (`TagSizes.together`), the
    /// range's counted up to it through the index on (created, entry_id). Counted up to it,
    /// `food` alone (118,250 of a million entries) kept `coffee` within `food` and `travel`
    /// (about 10,700 together) from leading: the count read `coffee`'s rows, each sought in
    /// both tags, 150–190 ms.
    ///
    /// A range with as many entries as that, or more, still leads, as if it held that many,
    /// where it has a start and as many entries come after its end: the terms' rows, read
    /// highest id first after a start (`matchingRowsNewestFirst`), would pass every row after
    /// the end before the first in the range. `coffee` in 2030 (52,000 of a million entries,
    /// 470,000 after it) read 400,000 rows so, 430–470 ms; walking the range newest first, a
    /// count stops after about as many entries as its bound over the terms' share.
    private static func smallerOfTagAndRange(_ db: Database, _ filter: EntryFilter, _ sizes: TagSizes?) throws -> (CountLeader, Int)? {
        var smaller: (CountLeader, Int)?
        if let sizes, !filter.tags.isEmpty {
            let tagged = sizes.together(filter.tags)
            if tagged < mostNarrowedEntries { smaller = (.firstTag, tagged) }
        }
        let range = EntryListSQL.dateRange(of: filter)
        guard !range.isEmpty else { return smaller }
        let inRange = try entries(db, range)
        if inRange < min(mostNarrowedEntries, smaller?.1 ?? .max) { return (.dateRange, inRange) }
        if smaller == nil, filter.since != nil, let until = filter.until, try entries(db, ["e.created > \(until)"]) >= mostNarrowedEntries {
            return (.dateRange, mostNarrowedEntries)
        }
        return smaller
    }

    /// The entries meeting `conditions` (on entries `e`), counted up to `mostNarrowedEntries`.
    private static func entries(_ db: Database, _ conditions: [SQLFragment]) throws -> Int {
        let count: SQLFragment = """
            SELECT count(*) FROM (SELECT 1 FROM entries e WHERE \(conditions.joined(separator: " AND ")) LIMIT \(mostNarrowedEntries))
            """
        let statement = count.sqlite
        return try Int.fetchOne(db.cachedStatement(sql: statement.sql), arguments: statement.arguments) ?? 0
    }

    /// Whether the entries holding every term of `search` (all of them short) are
    /// `tagged` or more: then the first tag, on `tagged` entries, leads the count, each of them
    /// checked for the terms in its text. Led by the grams of 京都 (in a fifth of a million
    /// entries), each probed for the tag `night` (13,238 entries) until the count had its
    /// bound, the search took 138–154 ms; led by the tag, 28. Every entry is counted, whoever
    /// asks, as the tag's are: each leader reads all of its rows, whoever may list them, and
    /// the plan changes what the count costs, never what it finds. Counting the public ones
    /// alone, a look-up of each, cost 12–19 ms more.
    private static func shortTermsOutnumber(_ tagged: Int, _ db: Database, _ search: TermSearch) throws -> Bool {
        guard let grams = SQLiteEntryDialect.gramQuery(search) else { return false }
        return try matchCount(db, in: "entries_grams", grams, upTo: Int64(tagged)) >= tagged
    }

    /// How many rows of the FTS5 table `table` match `match`, counted up to `limit`: a count
    /// that stops, whatever the index holds.
    static func matchCount(_ db: Database, in table: String, _ match: String, upTo limit: Int64) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM (SELECT 1 FROM \(table) WHERE \(table) MATCH ? LIMIT ?)"),
            arguments: [match, limit]
        ) ?? 0
    }

    /// The entries of `ids`, in that order, with their authors and tags.
    private static func entries(_ db: Database, ids: [Int64]) throws -> [Entry] {
        let rows: SQLFragment = "\(sql: entryColumns) WHERE \(SQLiteEntryDialect.isOneOf(ids))"
        let statement = rows.sqlite
        let byID = try Dictionary(
            Row.fetchAll(db.cachedStatement(sql: statement.sql), arguments: statement.arguments).map(entry(from:)).map { ($0.id, $0) },
            uniquingKeysWith: { first, _ in first }
        )
        return ids.compactMap { byID[$0] }
    }

    /// Whether the short terms of `query` lead (`TermSearch.shortTermsLead`): it has terms of
    /// both kinds, and `entries_grams` finds its short ones in fewer entries the viewer may
    /// list than the count's bound. Counted over what the viewer may list, so that the plan,
    /// and with it the order of the page, never moves with anyone else's private entries.
    private static func shortTermsLead(_ db: Database, _ query: EntryQuery) throws -> Bool {
        let search = TermSearch(query.filter.terms, shortestIndexed: SQLiteEntryDialect.shortestIndexedTerm)
        guard !search.indexed.isEmpty, let grams = SQLiteEntryDialect.gramQuery(search) else { return false }
        let bound = EntryPage.countedMatches
        let count: SQLFragment = """
            SELECT count(*) FROM (SELECT 1 FROM entries_grams g JOIN entries e ON e.entry_id = g.rowid \
            WHERE entries_grams MATCH \(grams) AND \(EntryAccess.listable(by: query.viewerID)) LIMIT \(bound + 1)) counted
            """
        let statement = count.sqlite
        return try Int.fetchOne(db.cachedStatement(sql: statement.sql), arguments: statement.arguments) ?? 0 <= bound
    }

    /// The entries the filter finds, whatever the page: the ids of up to the count's bound and
    /// one (`EntryListSQL.matches`), or only their number, the diaries' counters as the viewer
    /// sees them, when nothing but the diary narrows the list.
    private static func matches(_ db: Database, _ query: EntryQuery, _ sql: EntryListSQL) throws -> (count: Int, ids: [Int64]?) {
        let seen = EntryAccess.seen("entry_count", else: "public_count", viewer: "?")
        var diaryTotal: Int?
        if let diaryID = query.diaryID {
            let count = try db.cachedStatement(sql: "SELECT \(seen) FROM diaries WHERE diary_id = ?")
            guard let total = try Int.fetchOne(count, arguments: [query.viewerID, diaryID]) else {
                throw StoreError(.notFound, .diary(diaryID))
            }
            diaryTotal = total
        }
        guard let matches = sql.matches?.sqlite else {
            if let diaryTotal { return (diaryTotal, nil) }
            let total = try Int.fetchOne(db.cachedStatement(sql: "SELECT coalesce(sum(\(seen)), 0) FROM diaries"), arguments: [query.viewerID])
            return (total ?? 0, nil)
        }
        let ids = try Int64.fetchAll(db.cachedStatement(sql: matches.sql), arguments: matches.arguments)
        return (ids.count, ids)
    }

    public func countEntries(_ query: EntryQuery, atOrAbove created: Date, id: Int64) throws(StoreError) -> Int {
        try read(query.subject) { db in
            let count = EntryListSQL.countAtOrAbove(
                query, created: created, id: id, dialect: SQLiteEntryDialect.self, narrowings: try Self.narrowings(db, terms: query.filter.terms)
            ).sqlite
            return try Int.fetchOne(db.cachedStatement(sql: count.sql), arguments: count.arguments) ?? 0
        }
    }

    /// `EXPLAIN QUERY PLAN` of the page query for `query` (as many matches make it when
    /// `walking`) or of its count (`EntryListSQL.matches`), for tests.
    func queryPlan(for query: EntryQuery, walking: Bool = false, count: Bool = false) throws(StoreError) -> [String] {
        try read(.operation("query plan")) { db in
            let sql = try Self.listSQL(db, query, Self.chunkLookUp(db, terms: query.filter.terms))
            // A list the diaries' counters count has no count statement: no plan.
            guard let page = (count ? sql.matches : sql.reading(totalIsEstimate: walking).page)?.sqlite else { return [] }
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(page.sql)", arguments: page.arguments)
                .map { row in try row.decode(String.self, atIndex: 3) }
        }
    }
}

// MARK: - Tags, export and import

extension SQLiteDiaryStore {
    /// Read from the counts the schema keeps (v10, `TagCountSQL`), a row or two per tag, sorted
    /// by code point. Counted from the tags' rows, it took 112 ms at a million entries.
    public func tags(viewerID: Int64?) throws(StoreError) -> [TagCount] {
        try read(.operation("tags")) { db in
            let tags: SQLFragment = "\(TagCountSQL.counts(seenBy: viewerID, dialect: SQLiteEntryDialect.self)) ORDER BY c.tag"
            let statement = tags.sqlite
            return try Row.fetchAll(db.cachedStatement(sql: statement.sql), arguments: statement.arguments).map { row in
                try TagCount(name: row.decode(atIndex: 0), count: row.decode(atIndex: 1))
            }
        }
    }

    /// Not bounded by `queryTimeout`, as on PostgreSQL: a batch walks the primary key on from
    /// the last id sent (`EntryListSQL.exportBatch`), so a whole export reads each entry once,
    /// and a stream already under way cannot answer 503 anyway. Bounded, a disk stalled under
    /// other work for half a second (seen here while another process wrote 6 GB) cut a
    /// million-entry public export at 637,000 entries.
    public func entries(afterID: Int64?, limit: Int, ownerID: Int64?) throws(StoreError) -> [Entry] {
        try read(.operation("entries after \(afterID ?? 0)"), bounded: false) { db in
            let batch = EntryListSQL.exportBatch(afterID: afterID, limit: limit, ownerID: ownerID, dialect: SQLiteEntryDialect.self).sqlite
            return try Row.fetchAll(db.cachedStatement(sql: batch.sql), arguments: batch.arguments).map(Self.entry(from:))
        }
    }

    public func importEntries(userID: Int64, entries: [ImportedEntry]) throws(StoreError) -> ImportResult {
        try write(.operation("import of \(entries.count) entries")) { db in
            guard let name = try Self.userName(db, id: userID) else {
                throw StoreError(.notFound, .user(userID))
            }
            let now = now()
            let plan = try ImportPlan(
                entries, userID: userID, userName: name, lookedUp: Self.lookUp(db, entries),
                // The largest id ever given out: AUTOINCREMENT's counter.
                largestID: Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'entries'") ?? 0, now: now.date
            )
            try Self.write(plan, userID: userID, db, now: now.text)
            return plan.result
        }
    }

    /// The owner of each imported id that is an entry's, and of each diary named.
    private static func lookUp(_ db: Database, _ entries: [ImportedEntry]) throws -> ImportPlan.LookedUp {
        let owner = try db.cachedStatement(sql: """
            SELECT d.user_id FROM entries e JOIN diaries d ON d.diary_id = e.diary_id WHERE e.entry_id = ?
            """)
        return try ImportPlan.LookedUp(entries, entryOwner: { try Int64.fetchOne(owner, arguments: [$0]) }) { diaryID in
            try diaryOwner(db, diaryID: diaryID).map { ImportPlan.DiaryOwner(ownerID: $0.id, defaultVisibility: $0.defaultVisibility) }
        }
    }

    /// Writes what `plan` says, each entry with its planned id (AUTOINCREMENT's counter follows).
    private static func write(_ plan: ImportPlan, userID: Int64, _ db: Database, now: String) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for planned in plan.inserts {
            let entry = planned.entry
            if let diary = planned.newDiary {
                let since = RFC3339.string(from: diary.since)
                try db.cachedStatement(sql: """
                    INSERT INTO diaries (diary_id, user_id, title, created, updated, public_updated) VALUES (?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [entry.diaryID, userID, diary.title, since, since, since])
            }
            try insert.execute(arguments: [
                entry.id, entry.diaryID, entry.title, entry.body, RFC3339.string(from: entry.created), RFC3339.string(from: entry.updated),
                planned.visibility.rawValue, planned.draftVisibility?.rawValue, planned.scheduledVisibility?.rawValue,
            ])
            try setTags(db, entryID: entry.id, tags: entry.tags, replacing: false)
            try setMediaLinks(db, entryID: entry.id, body: entry.body, replacing: false)
        }
        for added in plan.touched {
            try touchDiary(db, id: added.diaryID, now: now, publicly: added.publicEntries > 0)
        }
    }

    public func cursorSecret() throws(StoreError) -> [UInt8] {
        try read(.operation("cursor secret")) { db in
            guard let secret = try Data.fetchOne(db, sql: "SELECT value FROM settings WHERE name = 'cursor_secret'") else {
                throw StoreError(.notFound, .setting("cursor_secret"))
            }
            return Array(secret)
        }
    }
}
