import DiaryAPI
@testable import DiaryPostgresStore
import DiaryStore
import Foundation
import SeededRandom
import StoreKernel
import StoreTestSupport
import Testing

/// `PostgresEntryDialect.foldedCheck`, the check of a term too common for the chunks to narrow:
/// it finds what `lower()` and LIKE find, on the PostgreSQL the tests run on.
@Suite(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
struct PostgresFoldTests {
    /// 60 public entries of a new user's, each title and body so many `pieces` drawn by `random`.
    func postRandomTexts(_ store: PostgresDiaryStore, _ random: inout SplitMix64, pieces: [String], titlePieces: Int, bodyPieces: Int) throws {
        let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
        func text(_ length: Int) -> String { (0..<length).map { _ in pieces[random.next(pieces.count)] }.joined() }
        for _ in 0..<60 {
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: text(titlePieces), body: text(bodyPieces), visibility: .public)
        }
    }

    /// What the check rests on: `lower()` maps every code point to exactly one, and only U+0130
    /// and U+212A from outside ASCII into it. A PostgreSQL or a collation that folds more would
    /// fail here, rather than have a search miss entries.
    @Test func lowerFoldsTwoSignsIntoASCIIAndNothingElse() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let (intoASCII, notOne) = try store.read(.operation("folds")) { session in
                let codePoints = "generate_series(1, 1114111) AS c WHERE c NOT BETWEEN 55296 AND 57343"
                let intoASCII = try session.query("SELECT c FROM \(codePoints) AND c > 127 AND lower(chr(c)) ~ '[\\x01-\\x7f]' ORDER BY c")
                    .map { row in try row.decode(Int.self) as Int }
                let notOne = try session.one((Int).self, "SELECT count(*)::bigint FROM \(codePoints) AND length(lower(chr(c))) <> 1")
                return (intoASCII, notOne)
            }
            #expect(intoASCII == [0x130, 0x212A])
            #expect(notOne == 0)
        }
    }

    /// Random texts of upper- and lower-case letters, both signs and other letters, against
    /// random ASCII terms, some of which only a sign folded makes: the check and `lower()` with
    /// LIKE find the same entries.
    @Test func theFoldedCheckFindsWhatLowerFinds() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            var random = SplitMix64(seed: 130)
            let pieces = ["ka", "KA", "\u{212A}a", "zi", "Z\u{0130}", "ZI", "bar", "i", "I", "\u{0130}", "k", " ", "é", "É", "%", "_"]
            try postRandomTexts(store, &random, pieces: pieces, titlePieces: 2, bodyPieces: 12)
            let letters = ["ka", "zi", "bar", "i", "k", "a", " ", "%", "_"]
            var found = 0
            for _ in 0..<150 {
                let term = (0..<(2 + random.next(3))).map { _ in letters[random.next(letters.count)] }.joined()
                guard term.count >= 3, let check = PostgresEntryDialect.foldedCheck(term) else { continue }
                let pattern = LikePattern.containing(term)
                let plain: SQLFragment = "(lower(e.title) LIKE lower(\(pattern)) OR lower(e.body) LIKE lower(\(pattern)))"
                let (checked, matched) = try store.read(.operation("terms")) { session in
                    func ids(_ condition: SQLFragment) throws -> [Int64] {
                        let statement: SQLFragment = "SELECT e.entry_id FROM entries e WHERE \(condition) ORDER BY e.entry_id"
                        return try session.query(statement.postgres).map { row in try row.decode(Int64.self) }
                    }
                    return (try ids(check), try ids(plain))
                }
                #expect(checked == matched, "\(term.debugDescription)")
                found += matched.count
            }
            #expect(found > 100, "the terms find entries, so that the comparison says something")
        }
    }

    /// Random texts of both signs, other letters and cases against random ASCII terms: the
    /// ranked page's fold finds each term in the same titles and as many times in each body
    /// as `lower()` does, counted by bytes as the page counts them.
    @Test func theRankingFoldCountsWhatLowerCounts() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            var random = SplitMix64(seed: 131)
            let pieces = ["ka", "KA", "\u{212A}a", "zi", "Z\u{0130}", "ZI", "ki", "K\u{0130}", "i", "I", "\u{0130}", "k", " ", "é", "É"]
            try postRandomTexts(store, &random, pieces: pieces, titlePieces: 3, bodyPieces: 30)
            let letters = ["ka", "zi", "ki", "i", "k", "a", "z"]
            var hits = 0
            for _ in 0..<60 {
                let term = (0..<(2 + random.next(2))).map { _ in letters[random.next(letters.count)] }.joined()
                let fold = PostgresEntryDialect.rankingFold(of: [term, "zzz"])
                func counted(title: SQLFragment, body: SQLFragment) -> SQLFragment {
                    """
                    SELECT (strpos(\(title), lower(\(term))) > 0)::integer * 1000 \
                    + (octet_length(\(body)) - octet_length(replace(\(body), lower(\(term)), ''))) / octet_length(lower(\(term))) \
                    FROM entries e ORDER BY e.entry_id
                    """
                }
                let (folded, lowered) = try store.read(.operation("hits")) { session in
                    func run(_ statement: SQLFragment) throws -> [Int] { try session.query(statement.postgres).map { try $0.decode(Int.self) } }
                    return (try run(counted(title: fold.title, body: fold.body)), try run(counted(title: "lower(e.title)", body: "lower(e.body)")))
                }
                #expect(folded == lowered, "\(term.debugDescription)")
                hits += lowered.reduce(0, +)
            }
            #expect(hits > 1000, "the terms are found, so that the comparison says something")
            // A term outside ASCII is folded by `lower()` alone.
            #expect(PostgresEntryDialect.rankingFold(of: ["café"]).title.rendered { _ in "?" }.sql == "lower(e.title)")
        }
    }
}
