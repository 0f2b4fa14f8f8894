import DiaryStore
import GRDB
import StoreKernel

/// The chunk index of schema v8 in front of the trigram indexes (`schema-v8.sql`): a search
/// looks up which chunks hold each all-ASCII term of it, then gathers the entries holding one,
/// before its list is planned. FTS5 found `zanzibar`, whose trigrams are each in up to 99.98 %
/// of a million entries, by reading their lists whole.
extension SQLiteDiaryStore {
    /// The most chunks one part of a term is narrowed by: past that the part is in so many
    /// words that its trigrams are in as many entries, and it narrows nothing.
    static let mostChunksPerPart = 200

    /// The most entries a term's chunks may gather for the term to be narrowed by them; a term
    /// in more is searched as before, by its trigrams, whose count and walk newest first stop
    /// once they have the bound's matches or a page.
    static let mostNarrowedEntries = 20_000

    /// The trigger that keeps the chunk index as entries are written: without it (an offline
    /// replica's file) the index is empty and narrows nothing.
    static let chunkIndexTrigger = "entries_chunks_insert"

    /// Whether the file keeps its chunk index, read in the schema itself: GRDB's
    /// `triggerExists` answers from a cache that a reader connection does not renew when the
    /// writer drops a trigger.
    static func keepsChunkIndex(_ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND name = ?)"),
            arguments: [chunkIndexTrigger]
        ) ?? false
    }

    /// `TermSearch.narrowings` for the indexed, all-ASCII terms of `terms`: each the entries
    /// (at most `mostNarrowedEntries`) holding a chunk that holds the term, or for a phrase a
    /// pair of neighbouring chunks its first two parts span, and a chunk holding each other
    /// part as `TermChunks.places` says. A term of one part is held by every entry so found; a
    /// phrase is then checked in each.
    static func narrowings(_ db: Database, terms: [String]) throws -> [String: TermNarrowing] {
        try chunkLookUp(db, terms: terms).narrowings
    }

    /// What the chunk index says of the terms of a search: the narrowings of those it narrows
    /// (`narrowings(_:terms:)`), and those its chunks found in more than `mostNarrowedEntries`.
    struct ChunkLookUp {
        var narrowings: [String: TermNarrowing] = [:]
        var common: Set<String> = []
        /// For each common term of one part (a word, or a piece of one), the FTS5 query of
        /// `entries_chunks` that finds the entries holding it (`chunkQuery`).
        var commonChunks: [String: String] = [:]
        /// The terms the ranked index holds, each looked up if the chunks can (none where no
        /// chunk index is kept).
        var indexed: Set<String> = []
    }

    /// `ChunkLookUp` of `terms`.
    static func chunkLookUp(_ db: Database, terms: [String]) throws -> ChunkLookUp {
        var lookUp = ChunkLookUp()
        // An offline replica keeps no chunk index (`withoutChunkIndex`).
        guard try keepsChunkIndex(db) else { return lookUp }
        lookUp.indexed = Set(TermSearch(terms, shortestIndexed: SQLiteEntryDialect.shortestIndexedTerm).indexed)
        for term in lookUp.indexed {
            guard term.unicodeScalars.allSatisfy(\.isASCII), let parts = TermChunks.parts(of: term) else { continue }
            var alternatives: [[String]] = []
            var placed = Array(zip(parts, TermChunks.places(of: parts)))
            if parts.count > 1, let pairs = try pairTokens(placed[0], placed[1], db) {
                alternatives.append(pairs)
                placed.removeFirst(2)
            }
            for (part, place) in placed where part.unicodeScalars.count >= 3 {
                // A part shorter than a trigram cannot be looked up; the others narrow.
                guard let chunks = try chunks(holding: part, place, db) else { continue }
                alternatives.append(chunks)
            }
            guard !alternatives.isEmpty else { continue }
            guard let ids = try entries(holdingOneOfEach: alternatives, db) else {
                lookUp.common.insert(term)
                if parts.count == 1 { lookUp.commonChunks[term] = chunkQuery(alternatives) }
                continue
            }
            lookUp.narrowings[term] = narrowing(ids, holdsTerm: parts.count == 1)
        }
        return lookUp
    }

    /// The narrowing to the entries `ids`, as one value (a JSON array), so that the statement's
    /// text is the same whatever their number. As a condition, the ids are a set that entries
    /// are looked up in, never where a statement starts (the unary `+`): a walk newest first
    /// then stops once its page is full. Started from there, SQLite read and sorted all 11,000
    /// entries holding `kashaquamo` at a million entries for each page (82 against 21 ms). A
    /// count starts from `rows` instead, when no other index drives it.
    static func narrowing(_ ids: [Int64], holdsTerm: Bool) -> TermNarrowing {
        guard !ids.isEmpty else { return TermNarrowing(SQLFragment(stringLiteral: SQLiteEntryDialect.noRow), holdsTerm: true) }
        let array = SQLiteEntryDialect.jsonArray(ids)
        return TermNarrowing(
            "+e.entry_id IN (SELECT value FROM json_each(\(array)))", holdsTerm: holdsTerm,
            rows: "(SELECT value AS rowid FROM json_each(\(array)))", rowCount: ids.count
        )
    }

    /// The chunks of the vocabulary holding `part` (lower-cased) at `place`, or nil past
    /// `mostChunksPerPart`. Its trigram index finds the chunks holding the part's trigrams, and
    /// each is checked byte for byte, as it is folded already.
    static func chunks(holding part: String, _ place: TermChunks.Place, _ db: Database) throws -> [String]? {
        let part = part.lowercased()
        let placed: String
        switch place {
        case .inside: placed = "instr(v.chunk, :part) > 0"
        case .end: placed = "substr(v.chunk, -length(:part)) = :part"
        case .whole: placed = "v.chunk = :part"
        case .start: placed = "substr(v.chunk, 1, length(:part)) = :part"
        }
        let chunks = try String.fetchAll(db.cachedStatement(sql: """
            SELECT v.chunk FROM entry_vocabulary_fts f JOIN entry_vocabulary v ON v.chunk_id = f.rowid
            WHERE entry_vocabulary_fts MATCH :match AND \(placed) LIMIT \(mostChunksPerPart + 1)
            """), arguments: ["match": SQLiteEntryDialect.ftsString(part), "part": part])
        return chunks.count <= mostChunksPerPart ? chunks : nil
    }

    /// The tokens of the buckets of the pairs of neighbouring chunks that a phrase's first two
    /// parts span (`EntryChunks.pairBucket`): a chunk ending with the first, then one starting
    /// with the second (or equal to it). Nil when a part is shorter than a trigram, or the
    /// pairs are more than `mostChunksPerPart`: each part then narrows by its own chunks.
    static func pairTokens(
        _ first: (part: String, place: TermChunks.Place), _ second: (part: String, place: TermChunks.Place), _ db: Database
    ) throws -> [String]? {
        guard first.part.unicodeScalars.count >= 3, second.part.unicodeScalars.count >= 3,
            let ends = try chunks(holding: first.part, first.place, db), let starts = try chunks(holding: second.part, second.place, db),
            ends.count * starts.count <= mostChunksPerPart
        else { return nil }
        let buckets = Set(ends.flatMap { end in starts.map { start in EntryChunks.pairBucket(Array(end.utf8), Array(start.utf8)) } })
        return buckets.sorted().map { String(decoding: EntryChunks.pairToken($0), as: UTF8.self) }
    }

    /// The entries holding one chunk of each of `alternatives`, or nil past `mostNarrowedEntries`.
    static func entries(holdingOneOfEach alternatives: [[String]], _ db: Database) throws -> [Int64]? {
        guard !alternatives.contains(where: \.isEmpty) else { return [] }
        let ids = try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT rowid FROM entries_chunks WHERE entries_chunks MATCH ? LIMIT \(mostNarrowedEntries + 1)"),
            arguments: [chunkQuery(alternatives)]
        )
        return ids.count <= mostNarrowedEntries ? ids : nil
    }

    /// The FTS5 query of `entries_chunks` for the entries holding one chunk of each of
    /// `alternatives` (none empty).
    static func chunkQuery(_ alternatives: [[String]]) -> String {
        alternatives.map { chunks in
            "(" + chunks.map(SQLiteEntryDialect.ftsString).joined(separator: " OR ") + ")"
        }.joined(separator: " AND ")
    }
}
