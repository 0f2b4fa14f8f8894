import DiaryAPI
import DiaryStore
import StoreKernel

/// The chunk index of schema v9 in front of the trigram indexes: a search looks up which
/// chunks (a word with its punctuation, `postgres-v9.sql`) hold each of its terms, then asks
/// only the entries holding one of them. A rare word whose trigrams are all common had 76,827
/// candidates for 964 matches at 1,000,000 entries; through its chunks, its matches and a few.
extension PostgresDiaryStore {
    /// The most chunks, or pairs of chunks, one term is narrowed by: past that the term is in
    /// so many words that its trigrams do as well, and it is searched as before.
    static let mostChunksPerTerm = 200

    /// The largest share of entries a term's chunks may be in, by the planner's statistics,
    /// for the chunks to narrow it; a term past it is searched by its own check
    /// (`ChunkNarrowing.common`). The index hands over every entry holding them before the
    /// first is checked, where a walk newest first stops after the count's 1,001 matches.
    /// Measured at a million entries against the build before v9 (docs/performance.md, "the
    /// ranked page, the share and the unchecked word"): narrowed, words in 1.6 % to 6.7 % of
    /// entries were 2 to 15 times faster; words in 10 % and 13 % were 1.3 to 1.9 times slower,
    /// and twice as slow with a second common word (the planner joined the chunk index to that
    /// word's trigram index). A fifth, the first guess, was too high; `"and the"` (39 %) walks.
    static let mostCommonShare = 0.08

    /// The `ChunkPlan` of the terms of `query`, looked up in the snapshot of `session`'s
    /// transaction, which then runs its list.
    ///
    /// When the count reads a common word's list of entries (`countingCommonWordsTogether`),
    /// its bitmap gets `bitmapMemory` for the rest of the transaction: in the default 4 MB, the
    /// 141,440 entries of `night` at a million entries did not fit one bit each, and the pages
    /// that lost their bits had every entry's chunks computed again: its count took 73–107 ms
    /// so, against 38–44 in 16 MB (psql, medians of 9 in two runs).
    ///
    /// A list of tags is planned rarest tag first (`TagSizes.rarestFirst`), which `listSQL`
    /// applies to the query too.
    static func chunkPlan(for query: EntryQuery, _ session: SQLSession) throws -> ChunkPlan {
        let sizes = try weighsTags(query) ? tagSizes(session, query.filter.tags) : nil
        let query = sizes?.rarestFirst(query) ?? query
        var plan = try chunkPlan(session, terms: query.filter.terms, tags: query.filter.tags)
        plan.tagSizes = sizes
        if try rangeLeads(query.filter, plan, session) { plan.countLeader = .dateRange }
        if try tagLeads(query, plan, session) { plan.countLeader = .firstTag }
        if plan.narrowings.values.contains(where: { $0.narrowing.probe != nil }) {
            try session.send("SET LOCAL work_mem = '\(bitmapMemory)'")
        }
        return plan
    }

    /// The most entries a date range, or a list's tags together (`tagLeads`), may hold for it to
    /// lead a count, as many as on SQLite (`mostNarrowedEntries`).
    static let mostEntriesInLeadingRange = 20_000

    /// Whether the date range of `filter` leads the count of its terms (`CountLeader.dateRange`):
    /// no term is a word rare enough for its own few entries to lead, and the range holds
    /// fewer entries than the count's bound (counted up to it through the index on (created,
    /// entry_id), whoever may list them). Each of them is then checked for the terms. Led by
    /// the words, `night train` in a month (4,464 of a million entries) took 105 ms.
    private static func rangeLeads(_ filter: EntryFilter, _ plan: ChunkPlan, _ session: SQLSession) throws -> Bool {
        let range = EntryListSQL.dateRange(of: filter)
        guard !range.isEmpty, !filter.terms.isEmpty, plan.narrowings.values.allSatisfy(\.isCommon) else { return false }
        return try fewerThanLeadingBound("SELECT 1 FROM entries e WHERE \(range.joined(separator: " AND "))", session)
    }

    /// Whether the plan of `query` reads its tags' sizes: to put several tags rarest first, or
    /// to ask whether they lead (`tagLeads`). A list of one tag without terms outside a diary
    /// walks the tag's rows whatever its size, and the statement would cost that commonest list
    /// of tags a round trip, about a millisecond.
    private static func weighsTags(_ query: EntryQuery) -> Bool {
        let filter = query.filter
        return filter.tags.count > 1 || (!filter.tags.isEmpty && (!filter.terms.isEmpty || query.diaryID != nil))
    }

    /// The kept sizes of `tags` and of all entries (`TagSizes`); nil without tags.
    static func tagSizes(_ session: SQLSession, _ tags: [String]) throws -> TagSizes? {
        guard !tags.isEmpty else { return nil }
        let sizes = TagCountSQL.sizes(of: tags, entries: "SELECT NULL, coalesce(sum(entry_count), 0)::bigint FROM diary_activity")
        return try TagSizes(rows: session.query(sizes.postgres).map { row in try row.decode((String?, Int).self) })
    }

    /// Whether the tags of `query` lead it (`CountLeader.firstTag`): on fewer entries together
    /// than `mostEntriesInLeadingRange` by their kept sizes (`TagSizes.together`), the others
    /// read in the first one's rows, as on SQLite. Then the page walks the
    /// tag's rows newest first (`EntryListSQL.tagWalk`), each row's entry checked, where it
    /// walked every entry newest first. Asked only where it changes the page:
    /// - a diary's list of one tag without terms (any other list of tags walks its first tag's
    ///   rows whatever leads);
    /// - beside terms that nothing else leads (no rare word's rows, no date range, no words
    ///   counted together): their count already reads the tag's entries. `train` with the tag
    ///   `night`, page 10, newest first, walked about 40,000 entries at a million, 77 ms.
    private static func tagLeads(_ query: EntryQuery, _ plan: ChunkPlan, _ session: SQLSession) throws -> Bool {
        let filter = query.filter
        guard !filter.tags.isEmpty else { return false }
        if filter.terms.isEmpty {
            guard filter.tags.count == 1, query.diaryID != nil else { return false }
        } else {
            let leadingRows = plan.narrowings.values.contains { $0.narrowing.sortsMatches || $0.narrowing.rows != nil }
            guard plan.countLeader == nil, !leadingRows else { return false }
        }
        return (plan.tagSizes?.together(filter.tags) ?? .max) < mostEntriesInLeadingRange
    }

    /// Whether `rows` (a `SELECT` of them) are fewer than `mostEntriesInLeadingRange`, counted
    /// up to it.
    private static func fewerThanLeadingBound(_ rows: SQLFragment, _ session: SQLSession) throws -> Bool {
        let bound = mostEntriesInLeadingRange
        let count: SQLFragment = "SELECT count(*) FROM (\(rows) LIMIT \(bound)) c"
        return try session.one(Int.self, count.postgres).map { $0 < bound } ?? false
    }

    /// What a count reading a common word's list may hold in memory: a bit for each entry of
    /// a million, in pages of about seven (PostgreSQL's bitmap keeps one entry of 64 bytes per
    /// page, 143,000 pages at a million entries: 9 MB). A larger database loses bits past it
    /// and checks those pages' entries again, as before.
    static let bitmapMemory = "16MB"

    /// What narrows each indexed term of `terms` that the chunks can narrow, and what leads the
    /// count with the `tags` asked beside them.
    static func chunkPlan(_ session: SQLSession, terms: [String], tags: [String] = []) throws -> ChunkPlan {
        var narrowings: [String: ChunkNarrowing] = [:]
        for term in Set(TermSearch(terms, shortestIndexed: PostgresEntryDialect.shortestIndexedTerm).indexed) {
            let chunked = try TermChunks.parts(of: term).flatMap { parts in
                try parts.count == 1 ? chunksHolding(parts[0], session) : pairsSpanning(parts, session)
            }
            narrowings[term] = try chunked ?? checkedWhereCommon(term, session)
        }
        var plan = try countingCommonWordsTogether(narrowings, terms: terms, tags: tags, session)
        plan.readsRangesOnlyBesideChecks(terms: terms)
        return plan
    }

    /// The most entries, as a share of them, that common words may be held by together (the
    /// product of their shares) for their count to walk; below it, the count reads the chunk
    /// index for all of them at once. The count walks until it has its bound's matches: under a
    /// fifth, more than 5,000 entries, each checked for each word (about 5 µs). `night train`
    /// (14 % and 43 % of a million entries, 6 % together) walked 16,000 entries in 95–105 ms;
    /// the index, for both at once, took 28 ms. `night` alone took 47 ms walked, 38 so.
    static let mostJointShareWalked = 0.2

    /// The largest share of entries one of those words may be in: the index reads each word's
    /// list whole, and `coffee night` (97 % and 14 %) took 122 ms so, against 29 walked.
    static let mostCommonShareCountedTogether = 0.5

    /// `narrowings`, where words too common to narrow alone are in few enough entries together
    /// (`mostJointShareWalked`), with those words' chunks as their count's condition and their
    /// checks for any walk (`TermNarrowing.probe`). A word in most entries is left to its check:
    /// `coffee night` counts through the index of `night`, each of its entries checked for
    /// `coffee` (69 ms walked, 45–50 so).
    ///
    /// With `tags`, the count is led by whichever holds fewer entries: the words together, each
    /// entry of theirs then probed for the tags (`CountLeader.terms`), or the first tag, each of
    /// its entries checked for the words. Led by the tag `daily` (32 % of a million entries),
    /// `night train` walked 16,000 of its entries, 325 ms, and `night` 7,000, 136 ms; led by the
    /// words, 56 and 47 ms.
    ///
    /// Where every other term of `terms` is a common word too, checked cheaply in each entry,
    /// the words' entries are read from the ranged chunk index, one id range at a time
    /// (`TermNarrowing.rows`, `rangedRows`), so that the count stops once it has its bound.
    /// There, a first tag that would lead but is on `leastTagShareReadInRanges` of the entries
    /// or more is read with the words in each range instead (`rangedRows(_:tag:)`).
    static func countingCommonWordsTogether(
        _ narrowings: [String: ChunkNarrowing], terms: [String], tags: [String], _ session: SQLSession
    ) throws -> ChunkPlan {
        let together = narrowings.compactMapValues(\.commonWord).filter { $0.value.share <= mostCommonShareCountedTogether }
        let jointShare = together.values.reduce(1.0) { $0 * $1.share }
        guard !together.isEmpty, jointShare < mostJointShareWalked else { return ChunkPlan(narrowings: narrowings) }
        var plan = ChunkPlan(narrowings: narrowings)
        // A term the index does not hold (too short) has no narrowing either.
        let othersCheckedCheaply = terms.allSatisfy { narrowings[$0]?.isCommon == true }
        var rangedTag: String?
        if let tag = tags.first {
            let rarest = try rarestShare(of: tags, session)
            plan.countLeader = jointShare < rarest ? .terms : .firstTag
            if othersCheckedCheaply, plan.countLeader == .firstTag,
                try (tags.count == 1 ? rarest : rarestShare(of: [tag], session)) >= leastTagShareReadInRanges
            {
                rangedTag = tag
                plan.countLeader = .terms
            }
        }
        let words = together.sorted { $0.key < $1.key }.map(\.value)
        let rows = othersCheckedCheaply ? rangedRows(words, tag: rangedTag) : nil
        // What a deep page reads in each range instead of walking (`TermSearch.rangedWalk`).
        let inRange = othersCheckedCheaply ? rangedLookUp(words, tag: rangedTag) : nil
        for (term, word) in together {
            // A word's chunks hold it, as the check does (`chunksHolding`).
            let check = narrowings[term]?.narrowing.condition
            let narrowing = TermNarrowing(word.lookUp, holdsTerm: true, rows: rows, probe: check, inRange: inRange)
            plan.narrowings[term] = ChunkNarrowing(narrowing: narrowing, isCommon: true)
        }
        return plan
    }

    /// The ids of the entries holding each of `words`, in a `rowid` column, read from the
    /// ranged chunk index (schema v10) one id range at a time from the highest, so that a count
    /// under a `LIMIT` stops in the first range or two that hold enough: `night train` (in 6 %
    /// of a million entries) had its bounded count read 1,086 entries so, 3.5 ms, where the
    /// chunk index handed over all 61,204 (33 ms). A count that finds fewer than its bound reads
    /// every range, as many entries as before and a few index look-ups more for each range.
    ///
    /// With `tag`, each range's entries are also those of the tag's in that range: PostgreSQL
    /// intersects the range's bitmap of the words with the bitmap of those ids in the primary
    /// key before it reads an entry. A tag led the count before, each of its entries checked
    /// for the words: `night` with the tag `night` (13,238 of a million entries) checked 7,010
    /// of them for its bound, 61 ms, and `night train` with it all of them for its 859
    /// matches, 115 ms; read so, 33 and 45 ms in psql, about 2.5 ms a range.
    static func rangedRows(_ words: [CommonWord], tag: String? = nil) -> SQLFragment {
        """
        (SELECT found.entry_id AS rowid FROM \(newestIDRanges(downTo: "0")), \
        LATERAL (SELECT r.entry_id FROM entries r WHERE \(rangedLookUp(words, tag: tag))) AS found)
        """
    }

    /// Whether entry `r` holds each of `words` (and `tag`) in the id range `ranges.id_range`:
    /// what `rangedRows` reads in each range, and a deep page too (`TermSearch.rangedWalk`).
    static func rangedLookUp(_ words: [CommonWord], tag: String?) -> SQLFragment {
        var lookUps = words.map(\.rangedLookUp)
        if let tag {
            let bits = String(idRangeBits)
            lookUps.append("""
                r.entry_id = ANY (ARRAY(SELECT t.entry_id FROM entry_tags t WHERE t.tag = \(tag) \
                AND t.entry_id >= ranges.id_range << \(sql: bits) AND t.entry_id < (ranges.id_range + 1) << \(sql: bits)))
                """)
        }
        return lookUps.joined(separator: " AND ")
    }

    /// The least share of entries a first tag must be on for the count to read it with common
    /// words range by range (`rangedRows(_:tag:)`) rather than lead, each of its entries checked
    /// for them: led by the tag, the count reads at most its entries, about 8.7 µs each at a
    /// million entries (a look-up and the words' checks); read in ranges, at most every range,
    /// about 2.5 ms for each 65,536 ids (0.04 µs an id). They cost the same for a tag on about
    /// 0.45 % of the entries.
    static let leastTagShareReadInRanges = 0.005

    /// How many low bits of an entry id its id range leaves out, as `entry_ranged_chunks`
    /// (schema v10) cuts them: 65,536 ids a range.
    static let idRangeBits = 16

    /// The id ranges from the highest entry's down to `lowest`, as a table `ranges (id_range)`.
    static func newestIDRanges(downTo lowest: SQLFragment) -> SQLFragment {
        "generate_series((SELECT max(entry_id) FROM entries) >> \(sql: String(idRangeBits)), \(lowest), -1) AS ranges (id_range)"
    }

    /// The share of entries holding the rarest of `tags`, by the most common values ANALYZE
    /// found in `entry_tags` (a share of its rows, which are more than the entries); 0 when one
    /// of them is not listed (rarer than those that are), or before the first ANALYZE.
    private static func rarestShare(of tags: [String], _ session: SQLSession) throws -> Double {
        try session.one((Double).self, """
            SELECT coalesce(min(coalesce(listed.frequency, 0))
                * (SELECT reltuples FROM pg_class WHERE oid = 'entry_tags'::regclass)
                / nullif((SELECT reltuples FROM pg_class WHERE oid = 'entries'::regclass), 0), 0)::float8
            FROM unnest($1::text[]) AS asked (tag)
            LEFT JOIN (
                SELECT common.tag, common.frequency
                FROM pg_stats AS stats, unnest(stats.most_common_vals::text::text[], stats.most_common_freqs) AS common (tag, frequency)
                WHERE stats.schemaname = current_schema() AND stats.tablename = 'entry_tags' AND stats.attname = 'tag'
            ) AS listed ON listed.tag = asked.tag
            """, [tags]) ?? 0
    }

    /// A term of one part: the entries holding a chunk of the vocabulary that holds it.
    private static func chunksHolding(_ part: String, _ session: SQLSession) throws -> ChunkNarrowing? {
        let chunks = try session.query(
            "SELECT chunk FROM entry_vocabulary WHERE chunk LIKE lower($1) LIMIT \(mostChunksPerTerm + 1)",
            [LikePattern.containing(part)]
        ).map { row in try row.decode(String.self) as String }
        guard chunks.count <= mostChunksPerTerm else { return nil }
        guard !chunks.isEmpty else { return .matchingNothing }
        let share = try commonShare(of: chunks, in: "entries_chunks", session)
        let word = CommonWord(chunks: chunks, share: share)
        guard share <= mostCommonShare else { return .common(part, word: word) }
        // Each chunk holds the term and is a piece of the entry's folded title or body.
        return narrowing(word.lookUp, share: share, chunksHoldTerm: true, inRange: word.rangedLookUp)
    }

    /// A term of several parts: the entries holding a pair of neighbouring chunks that the
    /// first two parts span, a chunk ending with the first, then one starting with the second
    /// (or equal to it when more parts follow).
    private static func pairsSpanning(_ parts: [String], _ session: SQLSession) throws -> ChunkNarrowing? {
        let first = "%" + LikePattern.escaped(parts[0])
        let second = LikePattern.escaped(parts[1]) + (parts.count == 2 ? "%" : "")
        // Each side is looked up on its own (`MATERIALIZED`): under the pairs' `LIMIT`, the
        // planner expected the first few pairs early and read the whole vocabulary for the
        // chunks starting with `bridge`, 58 ms at a million entries, against 8 ms by its trigrams.
        let buckets = try session.query("""
            WITH a AS MATERIALIZED (SELECT chunk FROM entry_vocabulary WHERE chunk LIKE lower($1) LIMIT \(mostChunksPerTerm + 1)),
                b AS MATERIALIZED (SELECT chunk FROM entry_vocabulary WHERE chunk LIKE lower($2) LIMIT \(mostChunksPerTerm + 1))
            SELECT chunk_pair_bucket(a.chunk, b.chunk) FROM a, b LIMIT \(mostChunksPerTerm + 1)
            """, [first, second]).map { row in try row.decode(Int.self) as Int }
        guard buckets.count <= mostChunksPerTerm else { return nil }
        guard !buckets.isEmpty else { return .matchingNothing }
        let distinct = Set(buckets).sorted()
        let share = try commonShare(of: distinct.map(String.init), in: "entries_chunk_pairs", session)
        guard share <= mostCommonShare else { return .common(parts.joined(separator: " ")) }
        let listed = distinct.map { bucket -> SQLFragment in "\(bucket)" }.joined(separator: ", ")
        // Not every entry holding the pair holds the phrase: the chunks may be parted by a tab,
        // a line break or several spaces, a phrase of more parts is narrowed by its first two,
        // and a bucket holds other pairs too.
        return narrowing("entry_chunk_pairs(e.title, e.body) && ARRAY[\(listed)]::integer[]", share: share, chunksHoldTerm: false)
    }

    /// The narrowing of entries `e` to those `lookUp`, a condition on them, finds in the index.
    /// Keys the statistics list (`share` above 0) are left to the planner, which knows how many
    /// entries hold them and chooses between the index and a walk newest first.
    ///
    /// Left to the planner, the term's check stays even when the chunks hold the term: in a
    /// walk newest first it runs before the chunk function, which it spares for the entries
    /// without the term. Without it, page 5 of `kashaquamo` (in 1.1 % of a million entries)
    /// took 440 ms against 140.
    ///
    /// Keys the statistics do not list are rarer than any they do (1 % at a million entries),
    /// and the planner, guessing 0.5 %, walked 46,000 entries newest first to fill a page of
    /// `zanzibar` (0.1 %): 440 ms. Their matches are read from the index and sorted instead
    /// (`sortsMatches`), and where the chunks hold the term, not checked: the bounded count of
    /// `kashaquamo` took 6 ms so, against 12 ms when its entries' ids were first gathered
    /// into an array, and its page 5 took 25 against 56 ms, which looked each of the array's
    /// 12,131 ids up again to sort them.
    ///
    /// A word's matches are read so one id range at a time from the ranged chunk index
    /// (`inRange`, `PostgresEntryDialect.newestFirstPage(_:window:readingRanges:)`). A word the
    /// statistics list keeps its ranges for a deep page past the count (`TermSearch.rangedWalk`):
    /// `night doctor` (doctor in 4.6 % of a million entries), newest first, page 20 walked 52,000
    /// entries, 184 ms, and reads doctor's newest ranges in 80.
    private static func narrowing(_ lookUp: SQLFragment, share: Double, chunksHoldTerm: Bool, inRange: SQLFragment? = nil) -> ChunkNarrowing {
        guard share == 0 else { return ChunkNarrowing(narrowing: TermNarrowing(lookUp, holdsTerm: false, inRange: inRange)) }
        return ChunkNarrowing(narrowing: TermNarrowing(lookUp, holdsTerm: chunksHoldTerm, sortsMatches: true, inRange: inRange))
    }

    /// A term the chunks do not narrow (without an ASCII letter or digit, or in too many chunks)
    /// that the planner expects in more than `mostCommonShare` of the entries, as common words
    /// are: checked in each entry the count and the page read (`ChunkNarrowing.isCommon`), not
    /// looked up in the trigram indexes, which hand over every entry holding its trigrams before
    /// the first is checked. At a million entries, `café` (in half of them) was so looked up
    /// and ANDed with the chunks of `night` (14 %), 128–161 ms; checked in night's entries, read
    /// range by range (`countingCommonWordsTogether`), 34–47 ms. `雨でした 京都` went from 85–105
    /// to 38–44. Nil for a term the planner expects in fewer entries, which the trigram indexes
    /// find as before: in `night 京都市`, 京都市's trigrams lead.
    private static func checkedWhereCommon(_ term: String, _ session: SQLSession) throws -> ChunkNarrowing? {
        guard try plannedShare(of: term, session) > mostCommonShare else { return nil }
        let check = PostgresEntryDialect.check(term, folded: .inPlace)
        return ChunkNarrowing(narrowing: TermNarrowing(check, holdsTerm: true), isCommon: true)
    }

    /// The share of entries the planner expects to hold `term` in their lower-cased title or
    /// body: its estimate for the trigram indexes' condition, which matches the pattern against
    /// the sample of texts ANALYZE kept (`histogram_bounds`), over the entries it counted.
    /// Without statistics it guesses half a percent, and 0 before the table has a size.
    /// About 0.5 ms, where matching that sample in SQL took 2.
    private static func plannedShare(of term: String, _ session: SQLSession) throws -> Double {
        let pattern = LikePattern.containing(term)
        let plan = try session.one((String).self, """
            EXPLAIN SELECT 1 FROM entries e WHERE lower(e.title) LIKE lower($1) OR lower(e.body) LIKE lower($1)
            """, [pattern]) ?? ""
        let entries: Double = try session.one((Double).self, "SELECT reltuples::float8 FROM pg_class WHERE oid = 'entries'::regclass", []) ?? 0
        guard entries > 0, let rows = Self.plannedRows(plan) else { return 0 }
        return rows / entries
    }

    /// The rows the top line of a plan (`EXPLAIN`'s first row) expects: `rows=N` in its costs.
    static func plannedRows(_ line: String) -> Double? {
        guard let range = line.range(of: " rows=") else { return nil }
        return Double(line[range.upperBound...].prefix { $0.isNumber })
    }

    /// The share of entries holding one of `keys` in the GIN index `index`, by the most common
    /// elements ANALYZE found in it (an upper bound: an entry holding two is counted twice).
    /// A key it does not list is rarer than those it does; before the first ANALYZE, none is.
    private static func commonShare(of keys: [String], in index: String, _ session: SQLSession) throws -> Double {
        try session.one((Double).self, """
            SELECT coalesce(sum(common.frequency), 0)::float8
            FROM pg_stats AS stats, unnest(stats.most_common_elems::text::text[], stats.most_common_elem_freqs) AS common (key, frequency)
            WHERE stats.schemaname = current_schema() AND stats.tablename = $1 AND common.key = ANY ($2)
            """, [index, keys]) ?? 0
    }
}

/// What the chunk index says of the terms of a search, for its statements.
struct ChunkPlan {
    /// What narrows each term the chunks narrow (`TermSearch.narrowings`).
    var narrowings: [String: ChunkNarrowing] = [:]
    /// With tags, whether common words counted together through the index lead the count (in
    /// fewer entries than the rarest tag asked) or the first tag does (`TermSearch.countLeader`);
    /// nil when no words are so counted, or no tag is asked.
    var countLeader: CountLeader?
    /// The kept sizes of the tags asked, by which `listSQL` puts the rarest first.
    var tagSizes: TagSizes?

    /// Keeps a rare word's page reading its id ranges (`TermNarrowing.inRange`) only where every
    /// other term of `terms` is a word too common to narrow, checked in each entry's text
    /// whichever way the page goes (`ChunkNarrowing.common`). Beside a term an index finds, the
    /// page that sorts every match reads both in one scan of the indexes, which ranges read one
    /// at a time, each entry checked, did not beat: `kashaquamo night` (12,131 and 141,440 of a
    /// million entries), newest first, took 26 ms so against 23 at page 5, and 77 against 22 at
    /// page 50. Beside `coffee` (97 %), checked either way, page 1 took 22 against 86.
    ///
    /// A term of three characters or more that the chunks do not narrow (not ASCII, or in too
    /// many chunks) is checked in each match beside such a word too (`termConditions`):
    /// `kashaquamo 雨でした` sorted all 12,131 matches of the word, each checked, 97 ms.
    mutating func readsRangesOnlyBesideChecks(terms: [String]) {
        let search = TermSearch(terms, shortestIndexed: PostgresEntryDialect.shortestIndexedTerm)
        for (term, chunks) in narrowings where chunks.narrowing.inRange != nil && chunks.narrowing.sortsMatches {
            let othersChecked = terms.allSatisfy { other in
                guard other != term else { return true }
                guard let narrowing = narrowings[other] else { return search.isIndexed(other) }
                return narrowing.isCommon && narrowing.narrowing.probe == nil
            }
            if !othersChecked { narrowings[term] = chunks.withoutRanges }
        }
    }

    /// The narrowings as the kernel takes them.
    var termNarrowings: [String: TermNarrowing] { narrowings.mapValues(\.narrowing) }

    /// The statements of `query`, so planned.
    func listSQL(_ query: EntryQuery) -> EntryListSQL {
        EntryListSQL(tagSizes?.rarestFirst(query) ?? query, dialect: PostgresEntryDialect.self, narrowings: termNarrowings, countLeader: countLeader)
    }
}

/// A word's chunks (each holding it) in the vocabulary, with the share of entries holding one
/// of them by the planner's statistics.
struct CommonWord {
    let chunks: [String]
    let share: Double

    /// Whether entry `e` holds one of the chunks, by the chunk index.
    var lookUp: SQLFragment {
        "entry_chunks(e.title, e.body) && ARRAY[\(listed)]::text[]"
    }

    /// Whether entry `r` holds one of the chunks in the id range `ranges.id_range`, by the
    /// ranged chunk index (schema v10).
    var rangedLookUp: SQLFragment {
        "entry_ranged_chunks(r.entry_id, r.title, r.body) && ranged_chunks(ARRAY[\(listed)]::text[], ranges.id_range)"
    }

    private var listed: SQLFragment {
        chunks.map { chunk -> SQLFragment in "\(chunk)" }.joined(separator: ", ")
    }
}

/// What narrows one term, with how the chunks find its entries.
struct ChunkNarrowing {
    /// The condition on entries `e` for `TermSearch.narrowings`, and whether every entry it
    /// selects holds the term, so that its check can go: a word's chunks each hold it and are
    /// pieces of the entry's folded text (`entry_chunks` folds before it cuts), where a
    /// phrase's pairs are not. Only for a rare term's matches, which are read from the index
    /// (`TermNarrowing.sortsMatches`).
    var narrowing: TermNarrowing
    /// True when the chunks hold the term in too many entries to narrow it (`mostCommonShare`):
    /// the condition is then the term's own check (`PostgresEntryDialect.foldedCheck`), for the
    /// walk newest first the planner takes for such a term, which no index would shorten.
    var isCommon = false
    /// For a common word, its chunks, for a count with other common words
    /// (`countingCommonWordsTogether`).
    var commonWord: CommonWord?

    /// The check of a term too common to narrow, or nil when the term is not all ASCII
    /// (`checkedWhereCommon` then weighs it); with `word` for a word, whose chunks hold it.
    static func common(_ term: String, word: CommonWord? = nil) -> ChunkNarrowing? {
        PostgresEntryDialect.foldedCheck(term).map { check in
            ChunkNarrowing(narrowing: TermNarrowing(check, holdsTerm: true), isCommon: true, commonWord: word)
        }
    }

    /// The same narrowing, its page sorting every match rather than reading id ranges.
    var withoutRanges: ChunkNarrowing {
        var sorted = self
        sorted.narrowing.inRange = nil
        return sorted
    }

    /// No chunk holds the term: no entry does.
    static let matchingNothing = ChunkNarrowing(
        narrowing: TermNarrowing(SQLFragment(stringLiteral: PostgresEntryDialect.noRow), holdsTerm: true)
    )
}
