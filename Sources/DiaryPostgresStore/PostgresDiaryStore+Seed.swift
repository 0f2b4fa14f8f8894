import DiaryStore
import Foundation

extension PostgresDiaryStore {
    /// Writes many entries fast, as SQLite's `insertEntries` does: `batchSize` per transaction,
    /// each batch one `INSERT … SELECT FROM unnest(…)` of arrays (one round trip for thousands of
    /// rows, where `createEntry` takes several per entry). The entries are public, with their tags.
    /// The rules of every write still hold: the schema checks every row (an unknown diary fails its
    /// batch, which is rolled back), the counts move in the same transaction (with the times, in one statement per batch), ids come
    /// from the sequence, times are cut to whole seconds, each diary's `updated` and
    /// `public_updated` move forward to its newest entry, and each batch moves the data version
    /// (see `write`), so that every server's response cache sees it. Batches already written stay written.
    ///
    /// Then the planner's statistics of entries and their tags are gathered again (ANALYZE), so that the first
    /// searches of a freshly seeded database are planned on what it holds: without them every
    /// bigram counts as rare (`keys_are_common` reads them), and a page of one in half the
    /// entries would gather them all from the index and sort them, where walking the entries
    /// newest first stops after a page. 26 s at 1,000,000 entries.
    ///
    /// - returns: the number of entries written.
    @discardableResult
    public func insertEntries(_ entries: some Sequence<SeedEntry>, batchSize: Int = 2_000) throws(StoreError) -> Int {
        let written = try entries.writeInBatches(of: batchSize, insertBatch)
        try analyzeEntries()
        return written
    }

    /// ANALYZE of entries and their tags, on a session that may wait as long as a migration: it computes
    /// `entry_bigrams` of 30,000 sampled entries, longer than any request's time limit.
    private func analyzeEntries() throws(StoreError) {
        do {
            try pool.withConnection { pooled, _ in
                let session = SQLSession(pooled, logger: Self.logger, timeout: Self.maintenanceTimeout)
                try Self.inTransaction(session, begin: "BEGIN") {
                    try session.execute("SET LOCAL statement_timeout = 0")
                    try session.execute("ANALYZE entries, entry_tags")
                }
            }
        } catch {
            throw StoreError(error, subject: .operation("statistics of entries"))
        }
    }

    private func insertBatch(_ batch: [SeedEntry]) throws(StoreError) -> Int {
        let created = batch.map { Self.wholeSeconds($0.created) }
        let diaryIDs = batch.map(\.diaryID)
        return try write(.operation("\(batch.count) seeded entries")) { session in
            // Ids taken from the identity first, in order, so that the tags can name them
            // and ids rise with the order of `entries`.
            let entryIDs = try session.query("""
                SELECT nextval(pg_get_serial_sequence('entries', 'entry_id')) FROM generate_series(1, $1::integer)
                """, [batch.count]).map { row throws -> Int64 in try row.decode(Int64.self) }.sorted()
            try session.execute("""
                INSERT INTO entries (entry_id, diary_id, title, body, created, updated)
                SELECT entry_id, diary_id, title, body, created, created
                FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::timestamptz[])
                    AS seeded (entry_id, diary_id, title, body, created)
                """, [entryIDs, diaryIDs, batch.map(\.title), batch.map(\.body), created])
            let tagged = zip(entryIDs, batch).flatMap { id, entry in entry.tags.map { (id, $0) } }
            try session.execute("""
                INSERT INTO entry_tags (entry_id, tag, created, visibility, diary_id)
                SELECT e.entry_id, t.tag, e.created, e.visibility, e.diary_id
                FROM unnest($1::bigint[], $2::text[]) AS t (entry_id, tag) JOIN entries e ON e.entry_id = t.entry_id
                ON CONFLICT DO NOTHING
                """, [tagged.map(\.0), tagged.map(\.1)])
            // Each diary's count of this batch and its newest time (every seeded entry is
            // public), added to its row of diary_activity in one statement, as a post's are, in
            // the order of their ids (as an import locks them), so that two batches never deadlock.
            try session.execute("""
                INSERT INTO diary_activity AS a (diary_id, slot, entry_count, public_count, updated, public_updated)
                SELECT diary_id, $3, count(*)::integer, count(*)::integer, max(created), max(created)
                FROM unnest($1::bigint[], $2::timestamptz[]) AS s (diary_id, created) GROUP BY diary_id ORDER BY diary_id
                ON CONFLICT (diary_id, slot) DO UPDATE SET \(Self.addActivity)
                """, [diaryIDs, created, session.slot])
            return batch.count
        }
    }
}
