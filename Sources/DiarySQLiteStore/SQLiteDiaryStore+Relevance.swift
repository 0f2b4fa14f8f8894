import DiaryStore
import Foundation
import GRDB
import StoreKernel

/// The relevance order of a search whose terms the chunk index looked up, computed from the
/// count's ids instead of by FTS5: the order `SQLiteEntryDialect.rankedPage` gives, to the bit,
/// when every term is narrowed.
///
/// bm25() first counts every public entry holding each term (its weight), by a pass over the
/// term's trigram lists, then scores each match, by another: for `zanzibar` at a million
/// entries, whose trigrams are each in up to 99.98 % of them, about 250 ms, and for `zanzibar
/// coffee` 460 ms, `coffee` being in 970,000 of them. The chunks found the narrowed terms'
/// matches already; here their weights come from those, and each score from the match's text
/// and the index's own statistics, with FTS5's formula (fts5_aux.c, `fts5Bm25Function`) in
/// its order of operations.
///
/// A word the chunks found in more than `mostNarrowedEntries` entries (`ChunkLookUp.common`)
/// has its public entries counted through the chunks up to one past that number; past it, it
/// weighs what bm25 gives a term in half of the entries or more, its floor. That is its weight
/// in FTS5 too where it is in half of the public entries; where it is in fewer, this order
/// differs from FTS5's, and a rarer term decides it. Only public entries are counted, so that
/// no private entry moves the order anyone sees.
extension SQLiteDiaryStore {
    /// `ids` (every match of the list, at most the count's bound) in relevance order: a
    /// signed-in viewer's own unlisted and private ones first, newest first, then public ones
    /// by bm25 over `entries_fts`, each tie newest id first. Nil when a term is neither
    /// narrowed, nor a common word (`commonChunks`), nor one whose fold is known
    /// (`publicHits(_:phrase:)`), which FTS5 then ranks.
    static func relevanceOrder(_ db: Database, ids: [Int64], search: TermSearch, commonChunks: [String: String]) throws -> [Int64]? {
        guard !search.indexed.isEmpty, let totals = try FTS5Totals(db, table: "entries_fts"), totals.rows > 0 else { return nil }
        var hits: [Int64?] = []
        for term in search.indexed {
            if let narrowing = search.narrowings[term], let rows = narrowing.rows {
                hits.append(try publicHits(db, term, narrowing, rows))
            } else if let chunks = commonChunks[term] {
                hits.append(try publicHits(db, chunks: chunks))
            } else if TrigramFold.signs(foldedInto: term) != nil {
                hits.append(try publicHits(db, phrase: term))
            } else {
                return nil
            }
        }
        let folded = search.indexed.map { Array((TrigramFold.folded($0) ?? $0.lowercased()).utf8) }
        // Each text folded whole where a term needs it (é, from É), else as the chunks fold,
        // which costs less.
        let wholeFold = search.indexed.contains(where: TrigramFold.foldsBeyondEntryChunks) ? TrigramFold.table : nil
        let relevance = BM25(rows: totals.rows, tokens: totals.tokens, hits: hits)
        let matches: SQLFragment = """
            SELECT e.entry_id, e.visibility = 'public', e.created, e.title, e.body, s.sz
            FROM entries e LEFT JOIN entries_fts_docsize s ON s.id = e.entry_id AND e.visibility = 'public'
            WHERE \(SQLiteEntryDialect.isOneOf(ids))
            """
        var own: [(id: Int64, created: String)] = []
        var listed: [(id: Int64, score: Double)] = []
        let statement = matches.sqlite
        for row in try Row.fetchAll(db.cachedStatement(sql: statement.sql), arguments: statement.arguments) {
            let id: Int64 = row[0]
            guard row[1] as Bool else {
                own.append((id, row[2]))
                continue
            }
            let title: String = row[3], body: String = row[4]
            let texts = [title, body].map { wholeFold?.foldedBytes(of: $0) ?? EntryChunks.folded($0) }
            let frequencies = folded.map { term in texts.reduce(0) { $0 + occurrences(of: term, inFolded: $1) } }
            guard !frequencies.contains(0), let size = row[5] as Data?, let length = FTS5Totals.sum(ofVarints: size) else { return nil }
            listed.append((id, relevance.score(frequencies: frequencies.map(Double.init), length: Double(length))))
        }
        own.sort { ($0.created, $0.id) > ($1.created, $1.id) }
        listed.sort { $0.score != $1.score ? $0.score < $1.score : $0.id > $1.id }
        return own.map(\.id) + listed.map(\.id)
    }

    /// The public entries holding `term` among the rows of its narrowing: its weight counts
    /// every public entry holding it, whoever asks and whatever the list's other conditions.
    ///
    /// Where the rows all hold the term, a public one is one the public index holds, whose size
    /// FTS5 keeps in `entries_fts_docsize` (the scores below read it too): a row of a dozen
    /// bytes, where the entry's own row holds its whole text. At a million entries, the ranking
    /// of `kashaquamo zanzibar` (kashaquamo's 12,131 rows counted) took 27 ms in a debug build
    /// looking up each entry's visibility, 16 so.
    private static func publicHits(_ db: Database, _ term: String, _ narrowing: TermNarrowing, _ rows: SQLFragment) throws -> Int64 {
        let hits: SQLFragment = narrowing.holdsTerm
            ? "SELECT count(*) FROM \(rows) m JOIN entries_fts_docsize s ON s.id = m.rowid"
            : """
                SELECT count(*) FROM \(rows) m JOIN entries e ON e.entry_id = m.rowid \
                WHERE e.visibility = 'public' AND \(SQLiteEntryDialect.trigramProbe(term, viewerID: nil))
                """
        return Int64(try fetchOne(db, hits) ?? 0)
    }

    /// The public entries holding a common word, which the chunk index finds by `chunks`
    /// (`ChunkLookUp.commonChunks`), or nil past `mostNarrowedEntries`: it then weighs the
    /// floor, uncounted. Counted whole, `coffee`'s 970,000 would cost what the diary holds.
    ///
    /// The index holds every entry, whatever its visibility. Where the entries not public are
    /// few, the index alone is counted first, past the bound by as many as they are: reaching
    /// that, the word is past the bound in public entries too, with no entry looked up (3 ms
    /// where looking up 20,001 entries' visibility took 12 to 30 ms, at a million entries).
    /// Else each entry the index finds is looked up among the public index's sizes, as a
    /// narrowed word's are (`publicHits(_:_:_:_:)`).
    private static func publicHits(_ db: Database, chunks: String) throws -> Int64? {
        let notPublic = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(entry_count - public_count), 0) FROM diaries") ?? 0
        let bound = Int64(mostNarrowedEntries)
        if notPublic <= bound, try matchCount(db, in: "entries_chunks", chunks, upTo: bound + notPublic + 1) > bound + notPublic {
            return nil
        }
        let count = try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT count(*) FROM (SELECT 1 FROM entries_chunks c JOIN entries_fts_docsize s ON s.id = c.rowid \
            WHERE entries_chunks MATCH ? LIMIT ?)
            """), arguments: [chunks, bound + 1]) ?? 0
        return count > bound ? nil : count
    }

    /// The public entries holding `term`, one the chunks do not look up (not ASCII, or in too
    /// many chunks) whose fold is known (`TrigramFold.signs(foldedInto:)`: 雨でした, 京都市,
    /// café), whose instances `occurrences(of:inFolded:)` finds as FTS5 does, counted in the
    /// public trigram index up to `mostNarrowedEntries`, or nil past it, as a common word: it
    /// then weighs the floor. Ranked by FTS5 instead, `雨でした zanzibar` (雨でした in half of a
    /// million entries) took 286 ms, bm25 counting every entry holding 雨でした's trigrams.
    private static func publicHits(_ db: Database, phrase term: String) throws -> Int64? {
        let bound = Int64(mostNarrowedEntries)
        let count = try matchCount(db, in: "entries_fts", SQLiteEntryDialect.ftsString(term), upTo: bound + 1)
        return count > bound ? nil : count
    }

    private static func fetchOne(_ db: Database, _ query: SQLFragment) throws -> Int? {
        let statement = query.sqlite
        return try Int.fetchOne(db.cachedStatement(sql: statement.sql), arguments: statement.arguments)
    }

    /// The instances of the lower-cased ASCII `term` in `text` as the trigram tokenizer finds
    /// them: at every character where the text, folded as it folds into ASCII
    /// (`EntryChunks.fold`), holds the term, overlapping ones too ("aaa" is twice in "aaaa").
    /// Compared byte for byte: the bytes of any other character are outside ASCII.
    static func occurrences(of term: [UInt8], in text: String) -> Int {
        occurrences(of: term, inFolded: EntryChunks.folded(text))
    }

    /// The instances of the folded `term` in the folded `text`, overlapping ones too, compared
    /// byte for byte: a match starts only where a character does, as no character's UTF-8
    /// starts inside another's.
    static func occurrences(of term: [UInt8], inFolded folded: [UInt8]) -> Int {
        guard folded.count >= term.count, !term.isEmpty else { return 0 }
        var count = 0
        for start in 0...(folded.count - term.count) where folded[start] == term[0] {
            if folded[start..<start + term.count].elementsEqual(term) { count += 1 }
        }
        return count
    }
}

/// FTS5's bm25 for a query of phrases (fts5_aux.c, SQLite 3.40), its operations in the same
/// order, so that each score is the double bm25() returns.
struct BM25 {
    static let k1 = 1.2
    static let b = 0.75
    /// The weight bm25 gives a phrase in half of the rows or more (its IDF would be 0 or less).
    static let floorWeight = 1e-6
    /// Each phrase's weight, in the query's order.
    let weights: [Double]
    let averageLength: Double

    /// `rows` in the index, `tokens` in all of them, and for each phrase of the query, in its
    /// order, the rows holding it; nil for a phrase given the floor's weight uncounted.
    init(rows: Int64, tokens: Int64, hits: [Int64?]) {
        averageLength = Double(tokens) / Double(rows)
        weights = hits.map { hits in
            guard let hits else { return Self.floorWeight }
            let idf = log((Double(rows - hits) + 0.5) / (Double(hits) + 0.5))
            return idf <= 0.0 ? Self.floorWeight : idf
        }
    }

    /// The score of a row holding each phrase `frequencies` times, in `length` tokens:
    /// negative, the most relevant lowest.
    func score(frequencies: [Double], length: Double) -> Double {
        let k1 = Self.k1, b = Self.b
        var score = 0.0
        for (idf, frequency) in zip(weights, frequencies) {
            score += idf * ((frequency * (k1 + 1.0)) / (frequency + k1 * (1 - b + b * length / averageLength)))
        }
        return -1.0 * score
    }
}

/// The statistics an FTS5 table keeps of itself: its rows and their tokens, from the
/// "averages" record (`<table>_data`, id 1: a varint of the rows, then one of the tokens of
/// each column), as `xRowCount` and `xColumnTotalSize(-1)` read them.
struct FTS5Totals {
    let rows: Int64
    let tokens: Int64

    init?(_ db: Database, table: String) throws {
        guard let record = try Data.fetchOne(db, sql: "SELECT block FROM \(table)_data WHERE id = 1"),
            let values = Self.varints(record), let rows = values.first
        else { return nil }
        self.rows = rows
        tokens = values.dropFirst().reduce(0, +)
    }

    /// The sum of the varints of `record` (a row's `sz` in `<table>_docsize`: its tokens in
    /// each column), or nil when one is cut short.
    static func sum(ofVarints record: Data) -> Int64? {
        varints(record)?.reduce(0, +)
    }

    /// The varints of `record`, SQLite's: seven bits a byte, big-endian, the high bit set on
    /// every byte but the last, and a ninth byte of eight bits.
    static func varints(_ record: Data) -> [Int64]? {
        let bytes = [UInt8](record)
        var values: [Int64] = []
        var offset = 0
        while offset < bytes.count {
            var value: UInt64 = 0
            var ended = false
            for index in 0..<9 where offset < bytes.count {
                let byte = bytes[offset]
                offset += 1
                if index == 8 {
                    value = value << 8 | UInt64(byte)
                    ended = true
                    break
                }
                value = value << 7 | UInt64(byte & 0x7F)
                if byte & 0x80 == 0 {
                    ended = true
                    break
                }
            }
            guard ended else { return nil }
            values.append(Int64(bitPattern: value))
        }
        return values
    }
}
