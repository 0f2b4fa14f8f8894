import DiaryAPI
import Foundation
import PostgresNIO
import StoreKernel

/// How PostgreSQL's store writes what `EntryListSQL` leaves to the engine.
///
/// Search finds what SQLite's store finds:
/// - A term of 3 or more characters must be a substring of the title or of the body, compared
///   after `lower()`, which under the database's C.UTF-8 collation folds non-ASCII letters too
///   (É and é), as SQLite's FTS5 trigram tokenizer does. The chunk index (schema v9,
///   `TermSearch.narrowings`) finds the candidates of a term the store narrowed by its chunks:
///   the entries holding it, for a term within one chunk; for a phrase, whose pairs of chunks
///   are hashed, strpos checks each. Else the trigram GIN indexes on `lower(title)` and
///   `lower(body)` find them, and LIKE checks each; but a term the planner expects in more
///   than 8 % of the entries is checked in each entry read, as a common word is
///   (`PostgresDiaryStore.checkedWhereCommon`).
/// - A shorter term, which trigrams cannot hold, must be a substring of `title || ' ' || body`
///   with ASCII letters folded only (SQLite's `lower()` without ICU). A term of two or more code
///   points is first looked up in the bigram index (schema v4, `entry_bigrams`), which holds
///   the lower-cased pairs of each title and body: whatever holds the term with ASCII letters
///   folded holds its lower-cased bigrams, so the index only narrows and `strpos` decides. A
///   term of one code point is looked up in the index of characters (schema v11,
///   `entry_characters`) the same way.
/// - A term holding a NUL matches nothing (no title or body holds one, and PostgreSQL text cannot).
///
/// Relevance (when a term of 3 or more characters is searched and no other order is asked):
/// SQLite ranks by bm25 over public entries; here an entry ranks by the number of those terms
/// its title holds, then by how many times they occur in its body, then newest id first. It
/// depends on the entry's own text only, so nobody's private words move anyone's order. As in
/// SQLite, a signed-in viewer's own unlisted and private matches come first, newest first.
/// As on SQLite, a search ranks only when its count finds at most `EntryPage.countedMatches`
/// matches; past that its pages come newest first (`indexProbe`): a term in most of the diary
/// costs a page, not what the diary holds.
enum PostgresEntryDialect: EntrySQLDialect {
    static let entryColumns = PostgresDiaryStore.entryColumns
    static let noRow = "FALSE"

    /// `all_tags` is the array of the entry's tags.
    static func carriesTag(_ tag: String, row: String) -> SQLFragment {
        "\(tag) = ANY (\(sql: row).all_tags)"
    }

    /// The most matches a ranked page reads, newest first: a guard, since a search ranks only
    /// when its count stayed within `EntryPage.countedMatches` (the same snapshot), so today
    /// the window holds every match. Ranking all 970,000 matches of a word in 97 % of a
    /// million entries took seconds.
    static let rankedWindow = EntryPage.countedMatches

    static func termConditions(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment] {
        termConditions(search, folded: .inPlace)
    }

    /// The lower-cased title and body a term is checked in: folded where the condition is
    /// (`inPlace`), or the columns of `folded`, which the ranked page folds once for both the
    /// check and the score; or with A–Z alone folded (`asciiLetters`, `foldedCheck`).
    struct FoldedText: Equatable {
        let title: String
        let body: String
        static let inPlace = FoldedText(title: "lower(e.title)", body: "lower(e.body)")
        static let column = FoldedText(title: "folded.title", body: "folded.body")
        static let asciiLetters = FoldedText(title: #"lower(e.title COLLATE "C")"#, body: #"lower(e.body COLLATE "C")"#)

        /// Whether the title or the body, so folded, holds `term` lower-cased: strpos, not LIKE,
        /// so that the planner cannot read the trigram indexes for it, which cost what the
        /// term's trigrams are in, not what the chunks found or what a walk reads.
        func holds(_ term: String) -> SQLFragment {
            "(strpos(\(sql: title), lower(\(term))) > 0 OR strpos(\(sql: body), lower(\(term))) > 0)"
        }
    }

    static func termConditions(_ search: TermSearch, folded: FoldedText) -> [SQLFragment] {
        search.terms.map { term in
            if let narrowing = search.narrowings[term] {
                // Without a check when the chunks hold the term: at a million entries, checking
                // the 986 entries of `zanzibar` was half of its count's 18–28 ms.
                guard !narrowing.holdsTerm else { return "(\(narrowing.condition))" }
                return "(\(narrowing.condition) AND \(check(term, folded: folded)))"
            }
            if search.isIndexed(term) {
                // Beside a word the chunk index finds rare, whose matches it reads (`sortsMatches`),
                // a check of each of them, which the planner cannot read the trigram indexes for:
                // it joined the trigrams of `雨でした` (in half of a million entries) to the 986
                // entries of `zanzibar`, a bitmap of 527,397 entries, 74 ms for the count.
                if search.sortsMatches { return check(term, folded: folded) }
                // As the trigram indexes' expressions, whatever `folded`: the indexes find them.
                let pattern = LikePattern.containing(term)
                return "(lower(e.title) LIKE lower(\(pattern)) OR lower(e.body) LIKE lower(\(pattern)))"
            }
            let scan = shortTermScan(term)
            guard let lookUp = shortTermLookUp(term) else { return scan }
            return "(\(scan) AND \(lookUp))"
        }
    }

    /// The index look-up that narrows a short term, `term`'s bigrams (schema v4) or, for one
    /// character, the character (v11), for rare keys only: `keys_are_common` folds to a
    /// constant when planned. Nil for a term holding U+0001, which both indexes cut the text
    /// at: it is scanned for.
    ///
    /// The index's expression is written as in the index so that the planner can use it. `&&`
    /// (implied by `@>`) is a second condition of the same index scan: it squares the planner's
    /// estimate of a key its statistics do not list (about 1 % here, for one in no entry),
    /// which otherwise had a page of 3 walk every entry (6 s for `zz`).
    static func shortTermLookUp(_ term: String) -> SQLFragment? {
        guard !term.unicodeScalars.contains("\u{1}") else { return nil }
        let (keys, function, index): (SQLFragment, String, String) = term.unicodeScalars.count == 1
            ? ("ARRAY[lower(\(term))]", "entry_characters", "entries_characters")
            : ("term_bigrams(\(term))", "entry_bigrams", "entries_bigrams")
        let lookUp: SQLFragment = "\(sql: function)(e.title, e.body) @> \(keys) AND \(sql: function)(e.title, e.body) && \(keys)"
        return "(keys_are_common(\(keys), '\(sql: index)') OR (\(lookUp)))"
    }

    /// Whether `term` is in entry `e`'s title or body, `folded`: where the text is not folded
    /// already (the ranked page folds it once), an ASCII term is checked without `lower()`.
    static func check(_ term: String, folded: FoldedText) -> SQLFragment {
        folded == .inPlace ? foldedCheck(term) ?? folded.holds(term) : folded.holds(term)
    }

    /// Whether entry `e`'s title or body holds `term` as `lower()` folds both, for a term of
    /// ASCII characters only (else nil), without `lower()` where the text cannot need it.
    /// Under C.UTF-8, `lower()` maps each code point to one, and only two outside ASCII into
    /// it: U+0130 (İ) into i and U+212A (KELVIN SIGN) into k
    /// (`PostgresFoldTests.lowerFoldsTwoSignsIntoASCIIAndNothingElse`). So a text holds the term
    /// folded where its ASCII letters folded alone (`lower(… COLLATE "C")`) hold it, or, only if
    /// it holds one of those signs and the term the letter it becomes, where `lower()` finds it.
    /// `lower()` decodes each text into wide characters: at 200,000 entries, `night` (in 14 % of
    /// them, whose count walks about 7,000) took 73 ms with it and 49 ms with this, `night
    /// train` 179 and 116, `"and the"` 36 and 24.
    static func foldedCheck(_ term: String) -> SQLFragment? {
        guard term.unicodeScalars.allSatisfy(\.isASCII) else { return nil }
        let holds = FoldedText.asciiLetters.holds(term)
        let signs = signs(foldedInto: term)
        guard !signs.isEmpty else { return holds }
        let holdsSign = signs.map { (sign: String) -> SQLFragment in "strpos(e.title, \(sign)) > 0 OR strpos(e.body, \(sign)) > 0" }
        return "(\(holds) OR ((\(holdsSign.joined(separator: " OR "))) AND \(FoldedText.inPlace.holds(term))))"
    }

    /// Whether `title || ' ' || body`, A–Z folded to a–z, holds a short `term`, written as
    /// cheaply as that allows (at 100,000 entries the bounded count of 京都 checked 5,220 entries
    /// in 36 ms as one folded copy of both, 12 ms as below):
    /// - `lower()` under the "C" collation folds A–Z only, as translate() did at a hundredth
    ///   of its cost (340 µs per 1 KB entry for translate, 3 µs for this). A term without
    ///   ASCII letters needs no fold: folding changes only A–Z, which such a term cannot match.
    /// - A term without a space cannot span the space between title and body: each is
    ///   searched alone, without a copy of both.
    static func shortTermScan(_ term: String) -> SQLFragment {
        let folded = asciiLowercased(term)
        let folds = term.unicodeScalars.contains { ("A"..."Z").contains($0) || ("a"..."z").contains($0) }
        func searched(_ text: String) -> String { folds ? "lower((\(text)) COLLATE \"C\")" : text }
        guard !term.contains(" ") else { return "strpos(\(sql: searched("e.title || ' ' || e.body")), \(folded)) > 0" }
        return "(strpos(\(sql: searched("e.title")), \(folded)) > 0 OR strpos(\(sql: searched("e.body")), \(folded)) > 0)"
    }

    /// The signs outside ASCII that `lower()` folds into a letter of `terms` (`foldedCheck`).
    static func signs(foldedInto terms: String) -> [String] {
        let letters = asciiLowercased(terms)
        return [("i", "\u{0130}"), ("k", "\u{212A}")].filter { letters.contains($0.0) }.map(\.1)
    }

    /// The title and body as the ranked page folds them once, for its checks of `terms` and
    /// their hits: `lower()`, or, where every term is ASCII, A–Z alone (`lower(… COLLATE "C")`)
    /// unless the text holds a sign that `lower()` folds into one of their letters, for the
    /// reason `foldedCheck` gives. `lower()` decodes each text into wide characters: the ranked
    /// page of `zanzibar`'s 986 matches at a million entries took 17.4 ms in psql with it, 13.4
    /// folded so (`PostgresFoldTests.theRankingFoldCountsWhatLowerCounts`).
    static func rankingFold(of terms: [String]) -> (title: SQLFragment, body: SQLFragment) {
        let lowered = FoldedText.inPlace, letters = FoldedText.asciiLetters
        guard terms.allSatisfy({ $0.unicodeScalars.allSatisfy(\.isASCII) }) else { return ("\(sql: lowered.title)", "\(sql: lowered.body)") }
        let signs = signs(foldedInto: terms.joined(separator: " "))
        func folded(_ column: String, lowered: String, letters: String) -> SQLFragment {
            guard !signs.isEmpty else { return "\(sql: letters)" }
            let holdsSign = signs.map { (sign: String) -> SQLFragment in "strpos(\(sql: column), \(sign)) > 0" }
            return "CASE WHEN \(holdsSign.joined(separator: " OR ")) THEN \(sql: lowered) ELSE \(sql: letters) END"
        }
        return (folded("e.title", lowered: lowered.title, letters: letters.title), folded("e.body", lowered: lowered.body, letters: letters.body))
    }

    /// The planner scanned the table from its oldest rows for a count after a date, each
    /// checked: `雨でした` since 2035 (the last 4 years of 19) passed 790,000 rows, 361 ms in
    /// psql; asked newest first, it walked the index on (created, entry_id) from the newest,
    /// 21 ms.
    static var countsNewestFirstAfterADate: Bool { true }

    /// The rows of common words counted together through the ranged chunk index, when the
    /// store found every term checked cheaply beside them (`rangedRows`); else nil, and the
    /// count reads the indexes its conditions are served by.
    static func matchingRows(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? {
        search.narrowingRows
    }

    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? {
        nil  // The terms' conditions use the trigram indexes themselves.
    }

    /// The ids as one array literal, cast: one parameter whatever their number.
    static func isOneOf(_ ids: [Int64]) -> SQLFragment {
        let array = "{" + ids.map(String.init).joined(separator: ",") + "}"
        return "e.entry_id = ANY(\(array)::bigint[])"
    }

    /// Nothing to add: each term's condition (`termConditions`) is already a check of one
    /// entry's text, which a walk newest first applies as it goes. Past the count's bound the
    /// page is that walk, as on SQLite, instead of ranking the newest `rankedWindow` matches:
    /// folding and matching 1,000 texts took 30 to 80 ms for `coffee` or `雨でした`, where the
    /// walk reads a page's worth.
    static func indexProbe(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment]? {
        []
    }

    /// The tag's seek, which `OFFSET 0` keeps from being hashed: PostgreSQL weighs a subquery
    /// against every entry the read could reach, not the few its `LIMIT` lets it, and may read
    /// all of the tag's entries into a hash first. With `work_mem` at 16 MB (a count's
    /// `PostgresDiaryStore.bitmapMemory`), the walk newest first of `night` with the tag `daily`
    /// hashed the tag's 317,183 entries, 125 ms, for a page that checked 458 entries (2 ms).
    static func holdsTag(_ tag: String) -> SQLFragment {
        "EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = \(tag) OFFSET 0)"
    }

    /// The viewer's diaries gathered once into an array (an `InitPlan`), which each entry is
    /// checked against. As `IN (SELECT …)`, a hashed subplan the planner could not weigh, the
    /// count of a tag with a token merged the tag's entries with the whole primary key at a
    /// million entries: 77,833 entries read for 1,001 of `night`, 39 ms, where the anonymous
    /// count looked each of them up, 2 ms (3.5 ms so with a token).
    static func inDiaryOf(_ userID: Int64) -> SQLFragment {
        "e.diary_id = ANY (ARRAY(SELECT diary_id FROM diaries WHERE user_id = \(userID)))"
    }

    /// The page's ids first, then their columns: PostgreSQL computes the select list (the
    /// tags' `ARRAY` subquery, the author's joins) for each row an `OFFSET` skips too. At
    /// 100,000 entries `page=450` took 65 ms so, 11 ms ids first. Ordered by the ids' own
    /// columns, so that the plan keeps their index's order instead of sorting again.
    ///
    /// Sorting a narrowing's matches (`sortingMatches`), the inner order adds no time to
    /// `created`, so that no index on it can give the order and the planner reads the matches
    /// from the chunk index, then sorts them: 25 ms for the 12,131 of `kashaquamo` at a million
    /// entries. It guesses 0.5 % of entries for a chunk its statistics do not list, and may
    /// walk newest first instead, computing each walked entry's chunks (for `zanzibar`, 46,000
    /// entries and 440 ms: `PostgresDiaryStore.narrowing(_:share:chunksHoldTerm:)`).
    static func newestFirstPage(_ conditions: SQLFragment, window: SQLFragment, sortingMatches: Bool) -> SQLFragment {
        let order = sortingMatches ? sortedOrder : EntryListSQL.newestFirstOrder
        return page(of: "SELECT e.entry_id, e.created FROM entries e WHERE \(conditions) ORDER BY \(sql: order) \(window)")
    }

    /// The most rows a page of a rare word reads range by range (`readingRanges`). Its check
    /// that no older range holds a newer entry reads the index on `created` down to the last
    /// row's date, about 35 ns an entry, and the ranges read hold more rows the deeper the
    /// page: for `kashaquamo` (1.1 % of a million entries), newest first, page 100 (2,001 rows)
    /// took 26 ms so against 38 sorting every match, page 200 (4,001) 29 against 41, page 300
    /// (6,001) 39 against 30, and 100 rows a page, page 100 (10,001), 65 against 43.
    static let mostRangedReach = 2_000

    /// The order of a narrowing's matches read from its index, then sorted (`sortingMatches`).
    private static let sortedOrder = "e.created + interval '0 seconds' DESC, e.entry_id DESC"

    /// The page of a rare word's matches (`TermNarrowing.inRange`), read from the ranged chunk
    /// index (schema v10) one id range at a time from the newest:
    /// - `reached` reads the ranges until they hold the window's `reach` matches;
    /// - `newest` sorts those of the ranges above the lowest one read, and all of that one's;
    /// - `holds` checks that no entry below that range is newer than the last of them, by the
    ///   index on `created`: an entry's date is its own and may go back (an import's do). When
    ///   one is, the page is every match sorted, as `newestFirstPage(sortingMatches: true)`
    ///   reads it, or, for common words (`RangedMatches.fallbackWalks`), the walk newest first.
    ///
    /// At a million entries `kashaquamo`'s page sorted its 12,131 matches: 19 ms on a warm
    /// connection, 47 ms on a new one, which touched each of their heap pages for the first
    /// time. Its newest range holds 216 of them: 2.7 ms in psql.
    ///
    /// Nil past `mostRangedReach` rows, for the page that sorts every match.
    static func newestFirstPage(_ conditions: SQLFragment, window: SQLFragment, readingRanges ranged: RangedMatches) -> SQLFragment? {
        guard ranged.reach <= mostRangedReach else { return nil }
        // `OFFSET 0` keeps each range's read whole and first. Merged into the statement, the
        // planner walked entries newest first and checked each one against every range: 3.5 s.
        let found: SQLFragment = """
            LATERAL (SELECT e.entry_id, e.created FROM (SELECT r.* FROM entries r WHERE \(ranged.inRange) OFFSET 0) e \
            WHERE \(ranged.checks)) found
            """
        let lowest = "(SELECT min(id_range) FROM reached)"
        let below = "\(lowest) << \(PostgresDiaryStore.idRangeBits)"
        let ids: SQLFragment = """
            (SELECT entry_id, created FROM newest WHERE (SELECT holds FROM holds) ORDER BY created DESC, entry_id DESC \(window)) \
            UNION ALL (SELECT e.entry_id, e.created FROM entries e WHERE NOT (SELECT holds FROM holds) AND \(conditions) \
            ORDER BY \(sql: ranged.fallbackWalks ? EntryListSQL.newestFirstOrder : sortedOrder) \(window))
            """
        return """
            WITH reached AS MATERIALIZED (SELECT ranges.id_range, found.entry_id, found.created \
            FROM \(PostgresDiaryStore.newestIDRanges(downTo: "0")), \(found) LIMIT \(ranged.reach)), \
            newest AS MATERIALIZED (SELECT m.entry_id, m.created FROM (SELECT entry_id, created FROM reached WHERE id_range > \(sql: lowest) \
            UNION ALL SELECT found.entry_id, found.created FROM (SELECT \(sql: lowest) AS id_range) ranges, \(found)) m \
            ORDER BY m.created DESC, m.entry_id DESC LIMIT \(ranged.reach)), \
            holds AS MATERIALIZED (SELECT (SELECT count(*) FROM newest) < \(ranged.reach) OR NOT EXISTS (SELECT 1 FROM entries g \
            WHERE g.created > (SELECT min(created) FROM newest) AND g.entry_id < \(sql: below)) AS holds) \
            \(page(of: ids))
            """
    }

    /// The page of the entry ids and dates `ids` selects, with their columns.
    private static func page(of ids: SQLFragment) -> SQLFragment {
        """
        \(sql: PostgresDiaryStore.entrySelectList) FROM (\(ids)) page JOIN entries e ON e.entry_id = page.entry_id \
        \(sql: PostgresDiaryStore.entryJoins) ORDER BY page.created DESC, page.entry_id DESC
        """
    }

    /// Ranked on the newest `rankedWindow` matches, then the page's columns for the page's ids
    /// only. Each match's title and body are folded once (`folded`, a subquery that `OFFSET 0`
    /// keeps from being merged into its expressions) for the narrowed terms' checks and for
    /// the score. At a million entries the ranked page of `zanzibar` (986 matches) took 50–86
    /// ms with `lower()` in each check and three times in the score, and the columns read for
    /// every match; 22–23 ms so.
    static func rankedPage(_ search: TermSearch, filters: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        rankedPage(search, conditions: filters + termConditions(search, folded: .column), viewerID: viewerID, window: window)
    }

    /// The ranked page of the count's ids, which are every match: searched again, `night train`
    /// with the tag `night` (859 matches at a million entries) read the words' chunk lists
    /// whole and checked the tag's entries once more; looked up by id, each is only ranked.
    static func rankedPage(ofMatches ids: [Int64], _ search: TermSearch, viewerID: Int64?, window: SQLFragment) -> SQLFragment? {
        rankedPage(search, conditions: [isOneOf(ids)], viewerID: viewerID, window: window)
    }

    /// The entries `e` that `conditions` select, ranked: the newest `rankedWindow` of them (all
    /// of them, under the count's bound), by how many terms the title holds, then how often the
    /// body holds them.
    private static func rankedPage(_ search: TermSearch, conditions: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        // Per term: does the title hold it, and how often does the body: the bytes that removing
        // it takes away, over its own. `octet_length` reads a length the text keeps, where
        // `char_length` counts the characters of a UTF-8 text one by one; with the fold of
        // `rankingFold`, the page of `zanzibar`'s 986 matches took 10 ms in psql against 17.
        let titleHits: [SQLFragment] = search.indexed.map { "(strpos(folded.title, lower(\($0))) > 0)::integer" }
        let bodyHits: [SQLFragment] = search.indexed.map { term in
            "(octet_length(folded.body) - octet_length(replace(folded.body, lower(\(term)), ''))) / octet_length(lower(\(term)))"
        }
        // A signed-in viewer's own unlisted and private matches first, newest first.
        let own = viewerID == nil ? "" : "m.listed_public, m.own_created DESC, "
        let order = "\(own)m.title_hits DESC, m.body_hits DESC, m.entry_id DESC"
        let folded = rankingFold(of: search.indexed)
        return """
            \(sql: PostgresDiaryStore.entrySelectList) FROM (
                SELECT m.* FROM (
                    SELECT e.entry_id, e.visibility = 'public' AS listed_public,
                        CASE WHEN e.visibility <> 'public' THEN e.created END AS own_created,
                        \(titleHits.joined(separator: " + ")) AS title_hits, \(bodyHits.joined(separator: " + ")) AS body_hits
                    FROM entries e CROSS JOIN LATERAL (SELECT \(folded.title) AS title, \(folded.body) AS body OFFSET 0) folded
                    WHERE \(conditions.joined(separator: " AND "))
                    ORDER BY \(sql: EntryListSQL.newestFirstOrder) LIMIT \(sql: String(rankedWindow))) m
                ORDER BY \(sql: order) \(window)) m
            JOIN entries e ON e.entry_id = m.entry_id \(sql: PostgresDiaryStore.entryJoins)
            ORDER BY \(sql: order)
            """
    }

    /// A–Z to a–z and nothing else, as SQLite's `lower()` and `lower()` under the "C" collation.
    static func asciiLowercased(_ term: String) -> String {
        String(String.UnicodeScalarView(term.unicodeScalars.map { scalar in
            ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }))
    }
}

extension SQLFragment {
    /// The statement with `$n` placeholders and its values bound, for postgres-nio.
    var postgres: PostgresQuery {
        let (sql, values) = rendered { "$\($0)" }
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .integer(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .date(let date): bindings.append(date)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}
