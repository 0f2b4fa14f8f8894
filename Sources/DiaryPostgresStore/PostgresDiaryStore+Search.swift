import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO
import SearchSnippets

// MARK: - Listing and search

extension PostgresDiaryStore {
    public func entries(_ query: EntryQuery) throws(StoreError) -> EntryResults {
        let subject = query.diaryID.map { "entries of diary \($0)" } ?? "entries"
        return try read(.operation(subject)) { session in
            // The count and the page come from the same snapshot: they agree.
            let total = try Self.count(session, query)
            let sql = PostgresEntrySQL(query)
            let rows = try session.query(sql.select, sql.selectArguments).map(Self.entry(from:))
            return EntryResults(rows: rows, for: query, limit: sql.limit, offset: sql.offset, ranked: sql.ranked, total: total)
        }
    }

    /// The number of entries the filter finds, whatever the page: the diaries' counters (as
    /// the viewer sees them) when nothing but the diary narrows the list.
    private static func count(_ session: SQLSession, _ query: EntryQuery) throws -> Int {
        let seen = "CASE WHEN user_id = $1 THEN entry_count ELSE public_count END"
        var diaryTotal: Int?
        if let diaryID = query.diaryID {
            guard let total = try session.one((Int).self, "SELECT \(seen) FROM diary_totals WHERE diary_id = $2", [query.viewerID, diaryID]) else {
                throw StoreError(.notFound, .diary(diaryID))
            }
            diaryTotal = total
        }
        let filter = query.filter
        if filter.query == nil, filter.since == nil, filter.until == nil, filter.tags.isEmpty {
            if let diaryTotal { return diaryTotal }
            return try session.one((Int).self, "SELECT coalesce(sum(\(seen)), 0)::bigint FROM diary_totals", [query.viewerID]) ?? 0
        }
        let sql = PostgresEntrySQL(query)
        return try session.one((Int).self, sql.count, sql.countArguments) ?? 0
    }
}

/// Statement text with its `$n` arguments, built together so that the numbers match.
struct SQLArguments {
    private(set) var values: [SQLArgument] = []

    /// Adds a value and answers its placeholder.
    mutating func bind(_ value: SQLArgument) -> String {
        values.append(value)
        return "$\(values.count)"
    }
}

/// The SQL of one list: the filter's conditions, then the order, the seek and the page.
///
/// Search finds what SQLite's store finds:
/// - A term of 3 or more characters must be a substring of the title or of the body, compared
///   after `lower()`, which under the database's C.UTF-8 collation folds non-ASCII letters too
///   (É and é), as SQLite's FTS5 trigram tokenizer does. The trigram GIN indexes on `lower(title)`
///   and `lower(body)` find the candidates; LIKE checks each.
/// - A shorter term, which trigrams cannot hold, must be a substring of `title || ' ' || body`
///   with ASCII letters folded only (SQLite's `lower()` without ICU), by a scan of the rows the
///   other conditions leave.
/// - A term holding a NUL matches nothing (no title or body holds one, and PostgreSQL text cannot).
///
/// Relevance (when a term of 3 or more characters is searched and no other order is asked):
/// SQLite ranks by bm25 over public entries; here an entry ranks by the number of those terms
/// its title holds, then by how many times they occur in its body, then newest id first. It
/// depends on the entry's own text only, so nobody's private words move anyone's order. As in
/// SQLite, a signed-in viewer's own unlisted and private matches come first, newest first.
struct PostgresEntrySQL {
    /// True for relevance order: pages are offsets.
    let ranked: Bool
    let limit: Int
    let offset: Int
    let select: String
    let selectArguments: [SQLArgument]
    let count: String
    let countArguments: [SQLArgument]

    static let upperASCII = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    static let lowerASCII = "abcdefghijklmnopqrstuvwxyz"

    init(_ query: EntryQuery) {
        let filter = query.filter
        limit = max(query.page.perPage, 0)
        let (pageOffset, overflow) = max(query.page.page - 1, 0).multipliedReportingOverflow(by: limit)
        let terms = filter.terms
        let indexed = terms.filter { $0.count >= 3 && !$0.contains("\0") }
        ranked = !indexed.isEmpty && filter.effectiveOrder == .relevance
        var offset = overflow ? Int.max - 1 : pageOffset
        if ranked, case .offset(let after) = query.position { offset = after }

        // The conditions, written twice: once for the count, once for the page (whose `$n`
        // continue after the rank's).
        func conditions(_ arguments: inout SQLArguments) -> [String] {
            var conditions: [String] = []
            if let viewerID = query.viewerID {
                conditions.append(
                    "(e.visibility = 'public' OR e.diary_id IN (SELECT diary_id FROM diaries WHERE user_id = \(arguments.bind(viewerID))))"
                )
            } else {
                conditions.append("e.visibility = 'public'")
            }
            if let diaryID = query.diaryID {
                conditions.append("e.diary_id = \(arguments.bind(diaryID))")
            }
            if let since = filter.since {
                conditions.append("e.created >= \(arguments.bind(since))")
            }
            if let until = filter.until {
                conditions.append("e.created <= \(arguments.bind(until))")
            }
            for tag in filter.tags {
                conditions.append("e.entry_id IN (SELECT entry_id FROM entry_tags WHERE tag = \(arguments.bind(tag)))")
            }
            if terms.contains(where: { $0.contains("\0") }) {
                conditions.append("FALSE")
                return conditions
            }
            for term in terms {
                if term.count >= 3 {
                    let pattern = arguments.bind("%" + Self.likeEscaped(term) + "%")
                    conditions.append("(lower(e.title) LIKE lower(\(pattern)) OR lower(e.body) LIKE lower(\(pattern)))")
                } else {
                    let folded = arguments.bind(Self.asciiLowercased(term))
                    conditions.append(
                        "strpos(translate(e.title || ' ' || e.body, '\(Self.upperASCII)', '\(Self.lowerASCII)'), \(folded)) > 0"
                    )
                }
            }
            return conditions
        }

        var countArguments = SQLArguments()
        let countConditions = conditions(&countArguments)
        count = "SELECT count(*) FROM entries e WHERE " + countConditions.joined(separator: " AND ")
        self.countArguments = countArguments.values

        let fetched = limit + 1
        var arguments = SQLArguments()
        if ranked {
            // Per term: does the title hold it, and how often does the body.
            var titleHits: [String] = [], bodyHits: [String] = []
            for term in indexed {
                let pattern = arguments.bind("%" + Self.likeEscaped(term) + "%")
                let plain = arguments.bind(term)
                titleHits.append("(lower(e.title) LIKE lower(\(pattern)))::integer")
                bodyHits.append(
                    "(char_length(lower(e.body)) - char_length(replace(lower(e.body), lower(\(plain)), ''))) / char_length(lower(\(plain)))"
                )
            }
            let pageConditions = conditions(&arguments)
            let own = query.viewerID == nil ? "" : "e.visibility = 'public', CASE WHEN e.visibility <> 'public' THEN e.created END DESC, "
            select = """
                \(PostgresDiaryStore.entryColumns) WHERE \(pageConditions.joined(separator: " AND "))
                ORDER BY \(own)\(titleHits.joined(separator: " + ")) DESC, \(bodyHits.joined(separator: " + ")) DESC, e.entry_id DESC
                LIMIT \(arguments.bind(fetched)) OFFSET \(arguments.bind(offset))
                """
        } else {
            var pageConditions = conditions(&arguments)
            if case .after(let created, let id) = query.position {
                // A seek on the index (created DESC, entry_id DESC): page 5,000 costs what page 1 costs.
                pageConditions.append("(e.created, e.entry_id) < (\(arguments.bind(created)), \(arguments.bind(id)))")
                offset = 0
            }
            select = """
                \(PostgresDiaryStore.entryColumns) WHERE \(pageConditions.joined(separator: " AND "))
                ORDER BY e.created DESC, e.entry_id DESC LIMIT \(arguments.bind(fetched)) OFFSET \(arguments.bind(offset))
                """
        }
        selectArguments = arguments.values
        self.offset = offset
    }

    /// A term as a LIKE pattern matches it literally: `\`, `%` and `_` escaped (`\` is LIKE's escape).
    static func likeEscaped(_ term: String) -> String {
        var escaped = ""
        for character in term {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// A–Z to a–z and nothing else, as SQLite's `lower()` and the `translate()` above.
    static func asciiLowercased(_ term: String) -> String {
        String(String.UnicodeScalarView(term.unicodeScalars.map { scalar in
            ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }))
    }
}

// MARK: - Tags, export and import

extension PostgresDiaryStore {
    public func tags(viewerID: Int64?) throws(StoreError) -> [TagCount] {
        try statement(.operation("tags")) { session in
            let listable = viewerID == nil
                ? "e.visibility = 'public'"
                : "(e.visibility = 'public' OR e.diary_id IN (SELECT diary_id FROM diaries WHERE user_id = $1))"
            let rows = try session.query("""
                SELECT t.tag, count(*)::bigint FROM entry_tags t JOIN entries e ON e.entry_id = t.entry_id
                WHERE \(listable) GROUP BY t.tag
                """, viewerID.map { [$0] } ?? [])
            // Sorted here, as SQLite sorts (by code point), whatever the database's collation.
            return try rows.map { row in
                let (name, count) = try row.decode((String, Int).self)
                return TagCount(name: name, count: count)
            }.sorted { $0.name < $1.name }
        }
    }

    public func entries(afterID: Int64?, limit: Int, ownerID: Int64?) throws(StoreError) -> [Entry] {
        try statement(.operation("entries after \(afterID ?? 0)")) { session in
            if let ownerID {
                return try session.query(
                    "\(Self.entryColumns) WHERE e.entry_id > $1 AND d.user_id = $2 ORDER BY e.entry_id LIMIT $3",
                    [afterID ?? 0, ownerID, max(limit, 0)]
                ).map(Self.entry(from:))
            }
            return try session.query(
                "\(Self.entryColumns) WHERE e.entry_id > $1 AND e.visibility = 'public' ORDER BY e.entry_id LIMIT $2",
                [afterID ?? 0, max(limit, 0)]
            ).map(Self.entry(from:))
        }
    }

    public func importEntries(userID: Int64, entries: [ImportedEntry]) throws(StoreError) -> ImportResult {
        try write(.operation("import of \(entries.count) entries")) { session in
            guard let name = try Self.userName(session, id: userID) else {
                throw StoreError(.notFound, .user(userID))
            }
            // Whether an id is above every id given out must be exact: a createEntry of another
            // server between reading the sequence and using the id could take the same number.
            // This lock waits for every transaction writing entries and holds off new ones (not
            // readers) until the import commits: imports are rare, and run one at a time.
            try session.execute("LOCK TABLE entries IN SHARE ROW EXCLUSIVE MODE")
            let now = now()
            var result = ImportResult()
            /// The diaries written to: how many entries, and how many public ones, they got.
            var touched: [Int64: (entries: Int, publicEntries: Int)] = [:]
            // The largest id ever given out: an id above it is kept, so an export read into a
            // new database keeps every id; one at or below it gets a new id, so an id is never
            // given out twice, and another user's entry, private or not, shows nothing of itself.
            var largestID = try session.one(
                (Int64).self, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM entries_entry_id_seq"
            ) ?? Int64(0)
            for imported in entries.sorted(by: { $0.entry.id < $1.entry.id }) {
                var entry = imported.entry
                guard entry.author == name else {
                    throw StoreError(.forbidden, .entryByAuthor(entry.id, author: entry.author))
                }
                let owner = try session.one((Int64).self, """
                    SELECT d.user_id FROM entries e JOIN diaries d ON d.diary_id = e.diary_id WHERE e.entry_id = $1
                    """, [entry.id])
                if owner == userID {
                    result.skipped += 1  // Already one of the caller's: read in before.
                    continue
                }
                let keepsID = entry.id > largestID
                let created = Self.wholeSeconds(entry.created)
                let defaultVisibility: Visibility
                if let owner = try Self.diaryOwner(session, diaryID: entry.diaryID) {
                    guard owner.id == userID else { throw StoreError(.forbidden, .diary(entry.diaryID)) }
                    defaultVisibility = owner.defaultVisibility
                } else {
                    // Dated like its first entry, unless that is not public: its date must not show.
                    let since = (imported.visibility?.value ?? .public) == .public ? created : now
                    try session.execute("""
                        INSERT INTO diaries (diary_id, user_id, title, created, updated, public_updated) VALUES ($1, $2, $3, $4, $4, $4)
                        """, [entry.diaryID, userID, Self.firstDiaryTitle(of: name), since])
                    // The sequence moves past the id taken, so that it never hands it out.
                    try session.execute("""
                        SELECT setval('diaries_diary_id_seq', greatest($1, (SELECT last_value FROM diaries_diary_id_seq)))
                        """, [entry.diaryID])
                    defaultVisibility = .public
                }
                let visibility = imported.visibility?.value ?? defaultVisibility
                let arguments: [SQLArgument] = [
                    entry.diaryID, entry.title, entry.body, created, Self.wholeSeconds(entry.updated), visibility.rawValue,
                ]
                if keepsID {
                    try session.execute("""
                        INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility) VALUES ($7, $1, $2, $3, $4, $5, $6)
                        """, arguments + [entry.id])
                    try session.execute("SELECT setval('entries_entry_id_seq', $1)", [entry.id])
                } else {
                    guard let id = try session.one((Int64).self, """
                        INSERT INTO entries (diary_id, title, body, created, updated, visibility) VALUES ($1, $2, $3, $4, $5, $6)
                        RETURNING entry_id
                        """, arguments) else { throw StoreError(.unavailable, .entry(entry.id), detail: "INSERT returned no id") }
                    entry.id = id
                }
                largestID = max(largestID, entry.id)
                try Self.setTags(session, entryID: entry.id, tags: entry.tags, replacing: false)
                touched[entry.diaryID, default: (0, 0)].entries += 1
                touched[entry.diaryID, default: (0, 0)].publicEntries += visibility == .public ? 1 : 0
                result.created += 1
            }
            for (diaryID, added) in touched.sorted(by: { $0.key < $1.key }) {
                try Self.touchDiary(
                    session, id: diaryID, now: now, publicly: added.publicEntries > 0, entries: added.entries,
                    publicEntries: added.publicEntries
                )
            }
            return result
        }
    }

    public func cursorSecret() throws(StoreError) -> [UInt8] {
        try statement(.operation("cursor secret")) { session in
            guard let secret = try session.one((ByteBuffer).self, "SELECT value FROM settings WHERE name = 'cursor_secret'") else {
                throw StoreError(.notFound, .setting("cursor_secret"))
            }
            return Array(secret.readableBytesView)
        }
    }
}
