import DiaryAPI
import SearchSnippets
import DiaryStore
import Foundation
import GRDB

// MARK: - Listing and search

extension SQLiteDiaryStore {
    public func entries(_ query: EntryQuery) throws(StoreError) -> EntryResults {
        let subject = query.diaryID.map { "entries of diary \($0)" } ?? "entries"
        return try read(.operation(subject)) { db in
            // The count and the page come from the same read transaction: they agree.
            let total = try Self.count(db, query)
            let sql = EntrySQL(query)
            // Decoded while SQLite steps through the rows: fetchAll would copy every value first.
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql.select), arguments: sql.selectArguments)
            let rows = try Array(cursor.map(Self.entry(from:)))
            return EntryResults(rows: rows, for: query, limit: sql.limit, offset: sql.offset, ranked: sql.ranked, total: total)
        }
    }

    /// The number of entries the filter finds, whatever the page: the diaries' counters (as
    /// the viewer sees them) when nothing but the diary narrows the list.
    private static func count(_ db: Database, _ query: EntryQuery) throws -> Int {
        let seen = "CASE WHEN user_id = ? THEN entry_count ELSE public_count END"
        var diaryTotal: Int?
        if let diaryID = query.diaryID {
            let count = try db.cachedStatement(sql: "SELECT \(seen) FROM diaries WHERE diary_id = ?")
            guard let total = try Int.fetchOne(count, arguments: [query.viewerID, diaryID]) else {
                throw StoreError(.notFound, .diary(diaryID))
            }
            diaryTotal = total
        }
        let filter = query.filter
        if filter.query == nil, filter.since == nil, filter.until == nil, filter.tags.isEmpty {
            if let diaryTotal { return diaryTotal }
            return try Int.fetchOne(db.cachedStatement(sql: "SELECT coalesce(sum(\(seen)), 0) FROM diaries"), arguments: [query.viewerID]) ?? 0
        }
        let sql = EntrySQL(query)
        return try Int.fetchOne(db.cachedStatement(sql: sql.count), arguments: sql.countArguments) ?? 0
    }

    /// `EXPLAIN QUERY PLAN` of the page query for `query`, for tests.
    func queryPlan(for query: EntryQuery) throws(StoreError) -> [String] {
        let sql = EntrySQL(query)
        return try read(.operation("query plan")) { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql.select)", arguments: sql.selectArguments)
                .map { row in try row.decode(String.self, atIndex: 3) }
        }
    }
}

/// The SQL of one list: the filter's conditions, then the order, the seek and the page.
struct EntrySQL {
    /// True for relevance order: the page joins the FTS table and sorts by bm25.
    let ranked: Bool
    let limit: Int
    let offset: Int
    let select: String
    let selectArguments: StatementArguments
    let count: String
    let countArguments: StatementArguments

    init(_ query: EntryQuery) {
        let filter = query.filter
        let listable = SQLiteDiaryStore.listable(by: query.viewerID)
        var conditions: [String] = [listable.sql]
        var arguments: [(any DatabaseValueConvertible)?] = listable.arguments
        if let diaryID = query.diaryID {
            conditions.append("e.diary_id = ?")
            arguments.append(diaryID)
        }
        if let since = filter.since {
            conditions.append("e.created >= ?")
            arguments.append(RFC3339.string(from: since))
        }
        if let until = filter.until {
            conditions.append("e.created <= ?")
            arguments.append(RFC3339.string(from: until))
        }
        for tag in filter.tags {
            conditions.append("e.entry_id IN (SELECT entry_id FROM entry_tags WHERE tag = ?)")
            arguments.append(tag)
        }
        // Terms of 3 or more characters go to the trigram index, each quoted as an FTS5 string
        // (so no text can be FTS5 syntax); shorter ones, which trigrams cannot hold, are scanned.
        let terms = filter.terms
        // FTS5 reads a query only up to a NUL ("unterminated string": it was a 503), and no title
        // or body holds one (the API refuses them): a term with a NUL matches nothing.
        if terms.contains(where: { $0.contains("\0") }) {
            conditions.append("0")
        }
        let indexed = terms.filter { $0.count >= 3 && !$0.contains("\0") }
        for term in terms where term.count < 3 {
            conditions.append("instr(lower(e.title || ' ' || e.body), lower(?)) > 0")
            arguments.append(term)
        }
        let match = indexed.isEmpty ? nil : indexed.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: " AND ")

        // Public entries are indexed in entries_fts, the others in entries_private_fts: the
        // statistics bm25 ranks by (how many entries hold a term, their average length) then
        // come from public entries only, and nobody's ranking moves with another's private text.
        let publicMatch = "e.entry_id IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?)"
        let privateMatch = "e.entry_id IN (SELECT rowid FROM entries_private_fts WHERE entries_private_fts MATCH ?)"
        let viewer = query.viewerID != nil

        // The count: every condition, as a plain filter of entries.
        var countConditions = conditions, countArguments = arguments
        if let match {
            countConditions.append(viewer ? "(\(publicMatch) OR \(privateMatch))" : publicMatch)
            countArguments += viewer ? [match, match] : [match]
        }
        count = "SELECT count(*) FROM entries e" + Self.whereClause(countConditions)
        self.countArguments = StatementArguments(countArguments)

        limit = max(query.page.perPage, 0)
        let (pageOffset, overflow) = max(query.page.page - 1, 0).multipliedReportingOverflow(by: limit)
        ranked = match != nil && filter.effectiveOrder == .relevance
        let fetched = limit + 1
        if ranked, let match, viewer {
            // The viewer's own unlisted and private matches first, newest first, then public ones
            // by relevance: ranked together, the order of the viewer's own would move with the
            // words of everyone's private entries, which share their index.
            if case .offset(let after) = query.position { offset = after } else { offset = overflow ? Int.max - 1 : pageOffset }
            select = """
                \(SQLiteDiaryStore.entrySelectList) FROM entries e \(SQLiteDiaryStore.entryJoins)
                LEFT JOIN (SELECT rowid, bm25(entries_fts) AS score FROM entries_fts WHERE entries_fts MATCH ?) p ON p.rowid = e.entry_id
                WHERE \(conditions.joined(separator: " AND ")) AND (p.rowid IS NOT NULL OR \(privateMatch))
                ORDER BY p.score IS NOT NULL, CASE WHEN p.score IS NULL THEN e.created END DESC, p.score, e.entry_id DESC LIMIT ? OFFSET ?
                """
            selectArguments = StatementArguments([match] + arguments + [match, fetched, offset])
            return
        }
        if ranked, let match {
            if case .offset(let after) = query.position { offset = after } else { offset = overflow ? Int.max - 1 : pageOffset }
            select = """
                \(SQLiteDiaryStore.entrySelectList) FROM entries_fts JOIN entries e ON e.entry_id = entries_fts.rowid \(SQLiteDiaryStore.entryJoins)
                WHERE entries_fts MATCH ?\(conditions.map { " AND " + $0 }.joined())
                ORDER BY bm25(entries_fts), e.entry_id DESC LIMIT ? OFFSET ?
                """
            selectArguments = StatementArguments([match] + arguments + [fetched, offset])
            return
        }
        var pageConditions = countConditions, pageArguments = countArguments
        if case .after(let created, let id) = query.position {
            // A seek on the index (created DESC, entry_id DESC): page 5,000 costs what page 1 costs.
            pageConditions.append("(e.created, e.entry_id) < (?, ?)")
            pageArguments += [RFC3339.string(from: created), id]
            offset = 0
        } else {
            offset = overflow ? Int.max - 1 : pageOffset
        }
        select = """
            \(SQLiteDiaryStore.entryColumns)\(Self.whereClause(pageConditions)) \(SQLiteDiaryStore.newestFirst)
            """
        selectArguments = StatementArguments(pageArguments + [fetched, offset])
    }

    private static func whereClause(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }
}

// MARK: - Tags, export and import

extension SQLiteDiaryStore {
    public func tags(viewerID: Int64?) throws(StoreError) -> [TagCount] {
        try read(.operation("tags")) { db in
            let listable = Self.listable(by: viewerID)
            let statement = try db.cachedStatement(sql: """
                SELECT t.tag, count(*) FROM entry_tags t JOIN entries e ON e.entry_id = t.entry_id
                WHERE \(listable.sql) GROUP BY t.tag ORDER BY t.tag
                """)
            return try Row.fetchAll(statement, arguments: StatementArguments(listable.arguments)).map { row in
                try TagCount(name: row.decode(atIndex: 0), count: row.decode(atIndex: 1))
            }
        }
    }

    public func entries(afterID: Int64?, limit: Int, ownerID: Int64?) throws(StoreError) -> [Entry] {
        try read(.operation("entries after \(afterID ?? 0)")) { db in
            let whose = ownerID == nil ? "e.visibility = 'public'" : "d.user_id = ?"
            let statement = try db.cachedStatement(sql: "\(Self.entryColumns) WHERE e.entry_id > ? AND \(whose) ORDER BY e.entry_id LIMIT ?")
            let arguments: StatementArguments = ownerID.map { [afterID ?? 0, $0, max(limit, 0)] } ?? [afterID ?? 0, max(limit, 0)]
            return try Row.fetchAll(statement, arguments: arguments).map(Self.entry(from:))
        }
    }

    public func importEntries(userID: Int64, entries: [ImportedEntry]) throws(StoreError) -> ImportResult {
        try write(.operation("import of \(entries.count) entries")) { db in
            guard let name = try Self.userName(db, id: userID) else {
                throw StoreError(.notFound, .user(userID))
            }
            let now = now().text
            var result = ImportResult()
            /// The diaries written to, and whether a public entry was among what they got.
            var touched: [Int64: Bool] = [:]
            let owner = try db.cachedStatement(sql: """
                SELECT d.user_id FROM entries e JOIN diaries d ON d.diary_id = e.diary_id WHERE e.entry_id = ?
                """)
            let insert = try db.cachedStatement(sql: """
                INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            // The largest id ever given out (AUTOINCREMENT's counter): an id above it is kept, so
            // an export read into a new database keeps every id; one at or below it gets a new id,
            // so an id is never given out twice, and another user's entry, private or not, shows
            // nothing of itself: its id is treated as one deleted long ago.
            var largestID = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'entries'") ?? 0
            for imported in entries.sorted(by: { $0.entry.id < $1.entry.id }) {
                var entry = imported.entry
                guard entry.author == name else {
                    throw StoreError(.forbidden, .entryByAuthor(entry.id, author: entry.author))
                }
                if try Int64.fetchOne(owner, arguments: [entry.id]) == userID {
                    result.skipped += 1  // Already one of the caller's: read in before.
                    continue
                }
                let keepsID = entry.id > largestID
                let created = RFC3339.string(from: entry.created)
                let defaultVisibility: Visibility
                if let owner = try Self.diaryOwner(db, diaryID: entry.diaryID) {
                    guard owner.id == userID else { throw StoreError(.forbidden, .diary(entry.diaryID)) }
                    defaultVisibility = owner.defaultVisibility
                } else {
                    // Dated like its first entry, unless that is not public: its date must not show.
                    let since = (imported.visibility?.value ?? .public) == .public ? created : now
                    try db.cachedStatement(sql: """
                        INSERT INTO diaries (diary_id, user_id, title, created, updated, public_updated) VALUES (?, ?, ?, ?, ?, ?)
                        """).execute(arguments: [entry.diaryID, userID, Self.firstDiaryTitle(of: name), since, since, since])
                    defaultVisibility = .public
                }
                let visibility = imported.visibility?.value ?? defaultVisibility
                try insert.execute(arguments: [
                    keepsID ? entry.id : nil, entry.diaryID, entry.title, entry.body, created, RFC3339.string(from: entry.updated),
                    visibility.rawValue,
                ])
                entry.id = db.lastInsertedRowID
                largestID = max(largestID, entry.id)
                try Self.setTags(db, entryID: entry.id, tags: entry.tags, replacing: false)
                touched[entry.diaryID, default: false] = touched[entry.diaryID, default: false] || visibility == .public
                result.created += 1
            }
            for (diaryID, publicly) in touched {
                try Self.touchDiary(db, id: diaryID, now: now, publicly: publicly)
            }
            return result
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
