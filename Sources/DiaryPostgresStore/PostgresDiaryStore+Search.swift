import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO
import StoreKernel

// MARK: - Listing and search

extension PostgresDiaryStore {
    public func entries(_ query: EntryQuery) throws(StoreError) -> EntryResults {
        try entries(query, narrowedByChunks: true)
    }

    /// `entries(_:)`, with the chunk index in front of the trigram indexes or without it (for
    /// tests, which hold both to the same answers).
    func entries(_ query: EntryQuery, narrowedByChunks: Bool) throws(StoreError) -> EntryResults {
        try read(query.subject) { session in
            try Self.withoutParallelWorkers(session)
            let sql = try (narrowedByChunks ? Self.chunkPlan(for: query, session) : ChunkPlan()).listSQL(query)
            // The count and the page come from the same snapshot: they agree.
            let matched = try Self.matches(session, query, sql)
            let total = sql.total(counted: matched.count)
            let reading = sql.reading(matches: matched.ids, dialect: PostgresEntryDialect.self)
            let rows = try session.query(reading.page.postgres).map(Self.entry(from:))
            return EntryResults(
                rows: rows, for: query, limit: sql.limit, offset: reading.offset, ranked: reading.ranked, total: total.total,
                totalIsEstimate: total.isEstimate
            )
        }
    }

    public func countEntries(_ query: EntryQuery, atOrAbove created: Date, id: Int64) throws(StoreError) -> Int {
        try read(query.subject) { session in
            try Self.withoutParallelWorkers(session)
            let narrowings = try Self.chunkPlan(for: query, session).termNarrowings
            let count = EntryListSQL.countAtOrAbove(query, created: created, id: id, dialect: PostgresEntryDialect.self, narrowings: narrowings)
            return try session.one((Int).self, count.postgres) ?? 0
        }
    }

    /// Turns parallel workers off for the rest of `session`'s transaction, a list's: its count
    /// stops at a bound and its page at a page, which workers cost more to start than they save.
    /// At a million entries, with them and without: `doctor` (in 4.6 % of entries) 50 and 28–31
    /// ms, its count 29 and 20 and its page 10.8 and 1.7; two tags at once 68–93 and 20; the
    /// count and page of `zanzibar` 38 and 42 ms, and 28 each; `night train`'s count 41 and 33.
    /// Sent without a wait of its own, as the read's time limit is.
    static func withoutParallelWorkers(_ session: SQLSession) throws {
        try session.send("SET LOCAL max_parallel_workers_per_gather = 0")
    }

    /// The entries the filter finds, whatever the page: the ids of up to the count's bound and
    /// one (`EntryListSQL.matches`), or only their number, the diaries' counters as the viewer
    /// sees them, when nothing but the diary narrows the list.
    private static func matches(_ session: SQLSession, _ query: EntryQuery, _ sql: EntryListSQL) throws -> (count: Int, ids: [Int64]?) {
        let seen = EntryAccess.seen("entry_count", else: "public_count", viewer: "$1")
        var diaryTotal: Int?
        if let diaryID = query.diaryID {
            guard let total = try session.one((Int).self, "SELECT \(seen) FROM diary_totals WHERE diary_id = $2", [query.viewerID, diaryID]) else {
                throw StoreError(.notFound, .diary(diaryID))
            }
            diaryTotal = total
        }
        guard let matches = sql.matches else {
            if let diaryTotal { return (diaryTotal, nil) }
            return (try session.one((Int).self, "SELECT coalesce(sum(\(seen)), 0)::bigint FROM diary_totals", [query.viewerID]) ?? 0, nil)
        }
        let ids = try session.query(matches.postgres).map { row in try row.decode(Int64.self) }
        return (ids.count, ids)
    }
}

// MARK: - Tags, export and import

extension PostgresDiaryStore {
    /// Read from the counts the schema keeps (v13, `TagCountSQL`), at most 16 rows per tag.
    /// Counted from the tags' rows, it took 143 ms at a million entries.
    public func tags(viewerID: Int64?) throws(StoreError) -> [TagCount] {
        try statement(.operation("tags")) { session in
            let tags = TagCountSQL.counts(seenBy: viewerID, dialect: PostgresEntryDialect.self)
            let rows = try session.query(tags.postgres)
            // Sorted here, as SQLite sorts (by code point), whatever the database's collation.
            return try rows.map { row in
                let (name, count) = try row.decode((String, Int).self)
                return TagCount(name: name, count: count)
            }.sorted { $0.name < $1.name }
        }
    }

    public func entries(afterID: Int64?, limit: Int, ownerID: Int64?) throws(StoreError) -> [Entry] {
        try statement(.operation("entries after \(afterID ?? 0)")) { session in
            let batch = EntryListSQL.exportBatch(afterID: afterID, limit: limit, ownerID: ownerID, dialect: PostgresEntryDialect.self)
            return try session.query(batch.postgres).map(Self.entry(from:))
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
            let plan = try ImportPlan(
                entries, userID: userID, userName: name, lookedUp: Self.lookUp(session, entries),
                // The largest id ever given out: the sequence's, once it has given one.
                largestID: session.one((Int64).self, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM entries_entry_id_seq") ?? 0,
                now: now
            )
            try Self.write(plan, userID: userID, session, now: now)
            return plan.result
        }
    }

    /// The owner of each imported id that is an entry's, and of each diary named.
    private static func lookUp(_ session: SQLSession, _ entries: [ImportedEntry]) throws -> ImportPlan.LookedUp {
        try ImportPlan.LookedUp(entries, entryOwner: { id in
            try session.one((Int64).self, """
                SELECT d.user_id FROM entries e JOIN diaries d ON d.diary_id = e.diary_id WHERE e.entry_id = $1
                """, [id])
        }) { diaryID in
            try diaryOwner(session, diaryID: diaryID).map { ImportPlan.DiaryOwner(ownerID: $0.id, defaultVisibility: $0.defaultVisibility) }
        }
    }

    /// Writes what `plan` says, each entry with its planned id; the sequences move past every
    /// id taken, so that they never hand one out again.
    private static func write(_ plan: ImportPlan, userID: Int64, _ session: SQLSession, now: Date) throws {
        for planned in plan.inserts {
            let entry = planned.entry
            if let diary = planned.newDiary {
                try session.execute("""
                    INSERT INTO diaries (diary_id, user_id, title, created, updated, public_updated) VALUES ($1, $2, $3, $4, $4, $4)
                    """, [entry.diaryID, userID, diary.title, wholeSeconds(diary.since)])
                try session.execute("""
                    SELECT setval('diaries_diary_id_seq', greatest($1, (SELECT last_value FROM diaries_diary_id_seq)))
                    """, [entry.diaryID])
            }
            try session.execute("""
                INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """, [
                    entry.id, entry.diaryID, entry.title, entry.body, wholeSeconds(entry.created), wholeSeconds(entry.updated),
                    planned.visibility.rawValue, planned.draftVisibility?.rawValue, planned.scheduledVisibility?.rawValue,
                ])
            try session.execute("SELECT setval('entries_entry_id_seq', $1)", [entry.id])
            try setTags(session, entryID: entry.id, tags: entry.tags, replacing: false)
            try setMediaLinks(session, entryID: entry.id, body: entry.body, replacing: false)
        }
        for added in plan.touched {
            try touchDiary(
                session, id: added.diaryID, now: now, publicly: added.publicEntries > 0, entries: added.entries,
                publicEntries: added.publicEntries
            )
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
