import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel
import Testing

/// A dialect whose every part is visible in the text, to see where the builder puts each.
enum MarkedDialect: EntrySQLDialect {
    static let entryColumns = "SELECT cols FROM entries e"
    static let noRow = "NEVER"
    static func termConditions(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment] { search.terms.map { "term(\($0))" } }
    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? {
        search.indexed.isEmpty ? nil : "match(\(search.indexed.joined(separator: " ")))"
    }
    static func rankedPage(_ search: TermSearch, filters: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        "RANKED \((filters + termConditions(search, viewerID: viewerID)).joined(separator: " AND ")) \(window)"
    }
    static func isOneOf(_ ids: [Int64]) -> SQLFragment { "e.entry_id IN ids(\(ids.map(String.init).joined(separator: ",")))" }
    static func carriesTag(_ tag: String, row: String) -> SQLFragment { "carries(\(sql: row), \(tag))" }
}

/// `MarkedDialect` with an index of matches to count through, a probe of one entry, and a
/// ranked page of the count's ids.
enum ProbingDialect: EntrySQLDialect {
    static let entryColumns = MarkedDialect.entryColumns
    static let noRow = MarkedDialect.noRow
    static func termConditions(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment] { MarkedDialect.termConditions(search, viewerID: viewerID) }
    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? { MarkedDialect.indexMatch(search, viewerID: viewerID) }
    static func rankedPage(_ search: TermSearch, filters: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        MarkedDialect.rankedPage(search, filters: filters, viewerID: viewerID, window: window)
    }
    static func matchingRows(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? { "rows(\(search.indexed.joined(separator: " ")))" }
    static func indexProbe(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment]? { ["probe(\(search.indexed.joined(separator: " ")))"] }
    static var countsNewestFirstAfterADate: Bool { true }
    static func rankedPage(ofMatches ids: [Int64], _ search: TermSearch, viewerID: Int64?, window: SQLFragment) -> SQLFragment? {
        "RANKED IDS \(isOneOf(ids)) \(window)"
    }
    static func isOneOf(_ ids: [Int64]) -> SQLFragment { MarkedDialect.isOneOf(ids) }
    static func carriesTag(_ tag: String, row: String) -> SQLFragment { MarkedDialect.carriesTag(tag, row: row) }
    static func newestFirstPage(_ conditions: SQLFragment, window: SQLFragment, readingRanges ranged: RangedMatches) -> SQLFragment? {
        "RANGES \(ranged.inRange) CHECKS \(ranged.checks) REACH \(ranged.reach) ELSE \(conditions) \(window)"
    }
}

/// `MarkedDialect` whose first term condition is a look-up that costs less than a tag's probe,
/// and whose tag probe is its own.
enum LookingUpDialect: EntrySQLDialect {
    static let entryColumns = MarkedDialect.entryColumns
    static let noRow = MarkedDialect.noRow
    static func termConditions(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment] { MarkedDialect.termConditions(search, viewerID: viewerID) }
    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? { nil }
    static func rankedPage(_ search: TermSearch, filters: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        MarkedDialect.rankedPage(search, filters: filters, viewerID: viewerID, window: window)
    }
    static func indexProbe(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment]? { [] }
    static func isOneOf(_ ids: [Int64]) -> SQLFragment { MarkedDialect.isOneOf(ids) }
    static func carriesTag(_ tag: String, row: String) -> SQLFragment { MarkedDialect.carriesTag(tag, row: row) }
    static func leadingLookUps(_ search: TermSearch) -> Int { 1 }
    static func holdsTag(_ tag: String) -> SQLFragment { "tagged(\(tag))" }
}

@Suite struct EntryListSQLTests {
    func rendered(_ fragment: SQLFragment) -> (sql: String, values: [SQLValue]) { fragment.rendered { "$\($0)" } }
    func rendered(_ fragment: SQLFragment?) -> (sql: String, values: [SQLValue]) { fragment.map(rendered) ?? ("no statement", []) }

    /// A walk newest first asks the dialect's cheap look-ups, then the tags (its own probe of
    /// them), then the rest of the terms, in that order whatever the engine's planner prefers.
    @Test func aWalkAsksLookUpsThenTagsThenTheTermsText() {
        let query = EntryQuery(filter: EntryFilter(query: "kashaquamo night", order: .newest, tags: ["daily"]))
        let page = rendered(EntryListSQL(query, dialect: LookingUpDialect.self).reading(totalIsEstimate: true).page)
        #expect(page.sql == """
            SELECT cols FROM entries e WHERE e.visibility = 'public' AND term($1) \
            AND CASE WHEN tagged($2) THEN term($3) ELSE FALSE END ORDER BY e.created DESC, e.entry_id DESC LIMIT $4 OFFSET $5
            """)
        #expect(Array(page.values.prefix(3)) == [.text("kashaquamo"), .text("daily"), .text("night")])
        // Without tags, nothing is reordered.
        let untagged = EntryQuery(filter: EntryFilter(query: "kashaquamo night", order: .newest))
        #expect(rendered(EntryListSQL(untagged, dialect: LookingUpDialect.self).reading(totalIsEstimate: true).page).sql.contains(
            "WHERE e.visibility = 'public' AND term($1) AND term($2) ORDER BY"
        ))
    }

    @Test func everyFilterIsAConditionWithItsValue() {
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        let query = EntryQuery(
            diaryID: 3, page: PageRequest(page: 2, perPage: 10), filter: EntryFilter(order: .newest, since: since, tags: ["a"]), viewerID: 9
        )
        let sql = EntryListSQL(query, dialect: MarkedDialect.self)
        let page = rendered(sql.page)
        #expect(page.sql == """
            SELECT cols FROM entries e WHERE (e.visibility = 'public' OR e.diary_id IN (SELECT diary_id FROM diaries WHERE user_id = $1)) \
            AND e.diary_id = $2 AND e.created >= $3 AND e.entry_id IN (SELECT entry_id FROM entry_tags WHERE tag = $4) \
            ORDER BY e.created DESC, e.entry_id DESC LIMIT $5 OFFSET $6
            """)
        #expect(page.values == [.integer(9), .integer(3), .date(since), .text("a"), .integer(11), .integer(10)])
        #expect(!sql.ranked && sql.offset == 10 && sql.limit == 10)
    }

    @Test func aSeekStartsAtTheTopAfterTheLastEntry() {
        let last = Date(timeIntervalSince1970: 1_700_000_000)
        let sql = EntryListSQL(EntryQuery(page: PageRequest(page: 4, perPage: 5), position: .after(created: last, id: 40)), dialect: MarkedDialect.self)
        let page = rendered(sql.page)
        #expect(page.sql.hasSuffix("AND (e.created, e.entry_id) < ($1, $2) ORDER BY e.created DESC, e.entry_id DESC LIMIT $3 OFFSET $4"))
        #expect(page.values == [.date(last), .integer(40), .integer(6), .integer(0)])
    }

    @Test func aRelevanceSearchGoesToTheDialectsRankedPage() {
        let query = EntryQuery(filter: EntryFilter(query: "kyoto ab"), position: .offset(20))
        let sql = EntryListSQL(query, dialect: MarkedDialect.self)
        #expect(sql.ranked && sql.offset == 20)
        #expect(rendered(sql.page).sql == "RANKED e.visibility = 'public' AND term($1) AND term($2) LIMIT $3 OFFSET $4")
        #expect(rendered(sql.matches).sql == """
            SELECT e.entry_id FROM entries e WHERE e.visibility = 'public' AND term($1) AND term($2) AND match($3) LIMIT $4
            """)
        #expect(rendered(sql.matches).values == [.text("kyoto"), .text("ab"), .text("kyoto"), .integer(Int64(EntryPage.countedMatches + 1))])
        #expect(sql.walkingPage == nil, "no probe in this dialect")
    }

    @Test func aTermWithANulMatchesNothing() {
        let sql = EntryListSQL(EntryQuery(filter: EntryFilter(query: "a\u{0}b kyoto")), dialect: MarkedDialect.self)
        #expect(rendered(sql.matches).sql == """
            SELECT e.entry_id FROM entries e WHERE e.visibility = 'public' AND NEVER AND match($1) LIMIT $2
            """)
    }

    /// A search counts up to its bound, walking the dialect's index of matches; past the
    /// bound the total is an estimate, and the newest-first page walks entries and probes.
    @Test func aSearchCountsUpToItsBoundAndWalksWhenMatchesAreMany() {
        let query = EntryQuery(filter: EntryFilter(query: "kyoto", order: .newest))
        let sql = EntryListSQL(query, dialect: ProbingDialect.self)
        #expect(sql.countBound == EntryPage.countedMatches && !sql.ranked)
        #expect(rendered(sql.matches).sql == """
            SELECT e.entry_id FROM rows($1) m JOIN entries e ON e.entry_id = m.rowid \
            WHERE e.visibility = 'public' AND term($2) LIMIT $3
            """)
        let walk = rendered(sql.reading(totalIsEstimate: true).page).sql
        #expect(walk == """
            SELECT cols FROM entries e WHERE e.visibility = 'public' AND term($1) AND probe($2) \
            ORDER BY e.created DESC, e.entry_id DESC LIMIT $3 OFFSET $4
            """)
        #expect(rendered(sql.reading(totalIsEstimate: false).page).sql.contains("match($2)"))
        // Relevance order past the bound walks too, newest first, its positions seeks.
        let ranked = EntryListSQL(EntryQuery(filter: EntryFilter(query: "kyoto"), position: .offset(40)), dialect: ProbingDialect.self)
        let reading = ranked.reading(totalIsEstimate: true)
        #expect(ranked.ranked && !reading.ranked && reading.offset == 40 && rendered(reading.page).sql.contains("probe($2)"))
        #expect(ranked.reading(totalIsEstimate: false).ranked)
        #expect(sql.total(counted: EntryPage.countedMatches) == (EntryPage.countedMatches, false))
        #expect(sql.total(counted: EntryPage.countedMatches + 1) == (EntryPage.countedMatches, true))
        let list = EntryListSQL(EntryQuery(), dialect: ProbingDialect.self)
        #expect(list.countedByDiaries && list.countBound == nil && list.matches == nil && list.walkingPage == nil)
        #expect(list.total(counted: 50_000) == (50_000, false))
    }

    /// Under the bound, a newest-first page is read from the ids the count found, seek and
    /// window applied to them, instead of searching the index again; a ranked page is the
    /// dialect's (`aRankedPageUnderTheBoundRanksTheIDsTheCountFound`), and past the bound the
    /// page walks as before.
    @Test func aNewestFirstPageUnderTheBoundReadsTheIDsTheCountFound() {
        let last = Date(timeIntervalSince1970: 1_700_000_000)
        let query = EntryQuery(filter: EntryFilter(query: "kyoto", order: .newest), position: .after(created: last, id: 40))
        let sql = EntryListSQL(query, dialect: ProbingDialect.self)
        let page = rendered(sql.reading(matches: [7, 40, 3], dialect: ProbingDialect.self).page)
        #expect(page.sql == """
            SELECT cols FROM entries e WHERE e.entry_id IN (SELECT e.entry_id FROM entries e WHERE e.entry_id IN ids($1) \
            AND (e.created, e.entry_id) < ($2, $3) ORDER BY e.created DESC, e.entry_id DESC LIMIT $4 OFFSET $5) \
            ORDER BY e.created DESC, e.entry_id DESC\u{20}
            """)
        #expect(page.values == [.text("7,40,3"), .date(last), .integer(40), .integer(21), .integer(0)])
        let many = [Int64](repeating: 1, count: EntryPage.countedMatches + 1)
        #expect(rendered(sql.reading(matches: many, dialect: ProbingDialect.self).page).sql.contains("probe($2)"))
        let ranked = EntryListSQL(EntryQuery(filter: EntryFilter(query: "kyoto")), dialect: ProbingDialect.self)
        let reading = ranked.reading(matches: [7, 40, 3], dialect: ProbingDialect.self)
        #expect(reading.ranked && rendered(reading.page).sql.hasPrefix("RANKED"))
    }

    /// Under the bound, an engine that ranks the count's ids ranks them, in the requested
    /// window; past the bound the page walks, and an engine that does not rank ids searches
    /// again.
    @Test func aRankedPageUnderTheBoundRanksTheIDsTheCountFound() {
        let query = EntryQuery(page: PageRequest(page: 2, perPage: 10), filter: EntryFilter(query: "kyoto"))
        let sql = EntryListSQL(query, dialect: ProbingDialect.self)
        let reading = sql.reading(matches: [7, 40, 3], dialect: ProbingDialect.self)
        let page = rendered(reading.page)
        #expect(reading.ranked && reading.offset == 10 && page.sql == "RANKED IDS e.entry_id IN ids($1) LIMIT $2 OFFSET $3")
        #expect(page.values == [.text("7,40,3"), .integer(11), .integer(10)])
        let many = [Int64](repeating: 1, count: EntryPage.countedMatches + 1)
        #expect(rendered(sql.reading(matches: many, dialect: ProbingDialect.self).page).sql.contains("probe($2)"))
        let searched = EntryListSQL(query, dialect: MarkedDialect.self).reading(matches: [7, 40, 3], dialect: MarkedDialect.self)
        #expect(rendered(searched.page).sql.hasPrefix("RANKED e.visibility"))
    }

    /// A list of a tag counts up to the bound from the tag's index (the counts kept for
    /// `GET /api/tags` know no diary or dates), gathers its entries for a page when they are
    /// few, and walks its rows newest first when they are many.
    @Test func aTagCountsUpToItsBoundAndWalksWhenTaggedEntriesAreMany() {
        let sql = EntryListSQL(EntryQuery(filter: EntryFilter(tags: ["daily"])), dialect: ProbingDialect.self)
        #expect(!sql.countedByDiaries && sql.countBound == EntryPage.countedMatches)
        // Without terms, from the first tag's rows alone, which carry their entries' columns.
        #expect(rendered(sql.matches).sql == "SELECT e.entry_id FROM entry_tags e WHERE e.tag = $1 AND e.visibility = 'public' LIMIT $2")
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        let two = EntryListSQL(EntryQuery(filter: EntryFilter(since: day, tags: ["daily", "tea"]), viewerID: 7), dialect: ProbingDialect.self)
        #expect(rendered(two.matches).sql == """
            SELECT e.entry_id FROM entry_tags e WHERE e.tag = $1 \
            AND (e.visibility = 'public' OR e.diary_id IN (SELECT diary_id FROM diaries WHERE user_id = $2)) AND e.created >= $3 \
            AND carries(e, $4) LIMIT $5
            """)
        #expect(rendered(sql.reading(totalIsEstimate: false).page).sql.contains("e.entry_id IN (SELECT entry_id FROM entry_tags WHERE tag = $1)"))
        #expect(rendered(sql.reading(totalIsEstimate: true).page).sql.contains("FROM entry_tags e WHERE e.tag = $1 AND e.visibility = 'public'"))
        // With terms, the terms' index drives the count and each tag is probed.
        let search = EntryListSQL(EntryQuery(filter: EntryFilter(query: "kyoto", tags: ["daily"])), dialect: ProbingDialect.self)
        #expect(rendered(search.matches).sql == """
            SELECT e.entry_id FROM rows($1) m JOIN entries e ON e.entry_id = m.rowid \
            WHERE e.visibility = 'public' AND EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $2) \
            AND term($3) LIMIT $4
            """)
        // The walk newest first asks each entry's tags before its terms, with the engine's
        // probes of them.
        #expect(rendered(search.reading(totalIsEstimate: true).page).sql == """
            SELECT cols FROM entries e WHERE e.visibility = 'public' \
            AND CASE WHEN EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $1) \
            THEN term($2) AND probe($3) ELSE FALSE END ORDER BY e.created DESC, e.entry_id DESC LIMIT $4 OFFSET $5
            """)
    }

    /// Terms that lead the tags have their narrowing's index drive the count, each tag probed;
    /// a narrowing with a probe that does not has the tag lead, the probe checking.
    @Test func termsThatLeadTheTagsDriveTheCount() {
        func count(_ leader: CountLeader?) -> String {
            let narrowing = TermNarrowing("chunks(night)", holdsTerm: true, probe: "check(night)")
            let query = EntryQuery(filter: EntryFilter(query: "night", tags: ["daily"]))
            let sql = EntryListSQL(query, dialect: MarkedDialect.self, narrowings: ["night": narrowing], countLeader: leader)
            return rendered(sql.matches).sql
        }
        #expect(count(.terms) == """
            SELECT e.entry_id FROM entries e WHERE e.visibility = 'public' \
            AND EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $1) AND term($2) AND match($3) LIMIT $4
            """)
        #expect(count(nil) == """
            SELECT e.entry_id FROM entry_tags m JOIN entries e ON e.entry_id = m.entry_id \
            WHERE m.tag = $1 AND e.visibility = 'public' AND term($2) AND match($3) LIMIT $4
            """)
    }

    /// A tag the engine found rarer than the terms leads the count over the terms' index,
    /// each of its entries probed for the terms.
    @Test func aTagThatLeadsTheTermsDrivesTheCount() {
        let query = EntryQuery(filter: EntryFilter(query: "night", tags: ["rare"]))
        let led = EntryListSQL(query, dialect: ProbingDialect.self, countLeader: .firstTag)
        #expect(rendered(led.matches).sql == """
            SELECT e.entry_id FROM entry_tags m JOIN entries e ON e.entry_id = m.entry_id \
            WHERE m.tag = $1 AND e.visibility = 'public' AND term($2) AND probe($3) LIMIT $4
            """)
        #expect(rendered(EntryListSQL(query, dialect: ProbingDialect.self).matches).sql.hasPrefix("SELECT e.entry_id FROM rows($1) m"))
        // Another tag is read in the leading tag's row, before the terms.
        let two = EntryQuery(filter: EntryFilter(query: "night", tags: ["rare", "tea"]))
        #expect(rendered(EntryListSQL(two, dialect: ProbingDialect.self, countLeader: .firstTag).matches).sql == """
            SELECT e.entry_id FROM entry_tags m JOIN entries e ON e.entry_id = m.entry_id \
            WHERE m.tag = $1 AND e.visibility = 'public' AND carries(m, $2) AND term($3) AND probe($4) LIMIT $5
            """)
        // After a date, the tag's entries are read highest id first.
        let since = EntryQuery(filter: EntryFilter(query: "night", since: Date(timeIntervalSince1970: 1_800_000_000), tags: ["rare"]))
        #expect(rendered(EntryListSQL(since, dialect: ProbingDialect.self, countLeader: .firstTag).matches).sql.hasSuffix("ORDER BY m.entry_id DESC LIMIT $5"))
        // Without a tag, nothing leads but the terms.
        let untagged = EntryListSQL(EntryQuery(filter: EntryFilter(query: "night")), dialect: ProbingDialect.self, countLeader: .firstTag)
        #expect(rendered(untagged.matches).sql.hasPrefix("SELECT e.entry_id FROM rows($1) m"))
    }

    /// A page of a tag that led the count, at any depth, walks the tag's rows newest first
    /// (`tagWalk`): without terms, every condition asked of the rows themselves, which carry
    /// their entry's date, visibility and diary; with terms, each row's entry checked for them,
    /// the other tags probed first, the dates asked of the row.
    @Test func aPageOfATagThatLedWalksTheTagsRows() {
        func page(_ words: String?, _ tags: [String], page number: Int = 1, since: Date? = nil, diaryID: Int64? = nil, viewerID: Int64? = nil) -> String {
            let filter = EntryFilter(query: words, order: .newest, since: since, tags: tags)
            let query = EntryQuery(diaryID: diaryID, page: PageRequest(page: number, perPage: 20), filter: filter, viewerID: viewerID)
            return rendered(EntryListSQL(query, dialect: ProbingDialect.self, countLeader: .firstTag).reading(totalIsEstimate: true).page).sql
        }
        for number in [1, 51, 500] {
            #expect(page(nil, ["rare"], page: number) == """
                SELECT cols FROM entries e WHERE e.entry_id IN (SELECT e.entry_id FROM entry_tags e \
                WHERE e.tag = $1 AND e.visibility = 'public' ORDER BY e.created DESC, e.entry_id DESC LIMIT $2 OFFSET $3) \
                ORDER BY e.created DESC, e.entry_id DESC\u{20}
                """)
            #expect(page("night", ["rare"], page: number) == """
                SELECT cols FROM entries e WHERE e.entry_id IN (SELECT e.entry_id FROM entry_tags t JOIN entries e ON e.entry_id = t.entry_id \
                WHERE t.tag = $1 AND e.visibility = 'public' AND term($2) AND probe($3) \
                ORDER BY t.created DESC, t.entry_id DESC LIMIT $4 OFFSET $5) ORDER BY e.created DESC, e.entry_id DESC\u{20}
                """)
        }
        // The owner's entries, another tag (in the row's copy of all its entry's tags) and a
        // diary are asked of the row; the dates and the other tag of the row where terms are
        // checked in the entry, the tag before the terms.
        #expect(page(nil, ["rare", "tea"], diaryID: 3, viewerID: 7).contains("""
            FROM entry_tags e WHERE e.tag = $1 AND (e.visibility = 'public' OR e.diary_id IN (SELECT diary_id FROM diaries WHERE user_id = $2)) \
            AND e.diary_id = $3 AND carries(e, $4) ORDER BY
            """))
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(page("night", ["rare", "tea"], since: day).contains("""
            WHERE t.tag = $1 AND t.created >= $2 AND e.visibility = 'public' AND e.created >= $3 \
            AND carries(t, $4) AND term($5) AND probe($6) ORDER BY t.created
            """))
    }

    /// A list of tags without terms walks its first tag's rows even where the tag did not
    /// lead the count (it is on many entries), but for a diary's list, which walks the
    /// diary's entries newest first; a tag that did not lead beside terms is probed in a walk.
    @Test func aListOfTagsWalksTheFirstTagsRowsButForADiary() {
        func page(_ words: String?, diaryID: Int64? = nil) -> String {
            let query = EntryQuery(diaryID: diaryID, filter: EntryFilter(query: words, order: .newest, tags: ["daily"]))
            return rendered(EntryListSQL(query, dialect: ProbingDialect.self).reading(totalIsEstimate: true).page).sql
        }
        #expect(page(nil).contains("FROM entry_tags e WHERE e.tag = $1"))
        #expect(page(nil, diaryID: 3) == """
            SELECT cols FROM entries e WHERE e.visibility = 'public' AND e.diary_id = $1 \
            AND EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $2) \
            ORDER BY e.created DESC, e.entry_id DESC LIMIT $3 OFFSET $4
            """)
        #expect(!page("night").contains("FROM entry_tags t JOIN") && !page("night").contains("FROM entry_tags e"))
    }

    /// A date range the engine found smaller than the terms' entries leads the count: its
    /// entries, each probed for the tags first, then for the terms. Without a range, the terms
    /// lead.
    @Test func aDateRangeThatLeadsTheTermsDrivesTheCount() {
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        let query = EntryQuery(filter: EntryFilter(query: "night", since: day, until: day + 86_400, tags: ["rare"]))
        let led = EntryListSQL(query, dialect: ProbingDialect.self, countLeader: .dateRange)
        #expect(rendered(led.matches).sql == """
            SELECT e.entry_id FROM entries e WHERE e.visibility = 'public' AND e.created >= $1 AND e.created <= $2 AND \
            CASE WHEN EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $3) \
            THEN term($4) AND probe($5) ELSE FALSE END LIMIT $6
            """)
        let unranged = EntryListSQL(EntryQuery(filter: EntryFilter(query: "night")), dialect: ProbingDialect.self, countLeader: .dateRange)
        #expect(rendered(unranged.matches).sql.hasPrefix("SELECT e.entry_id FROM rows($1) m"))
        // A count over entries after a date asks them newest first where the engine's planner
        // needs it; before one, it does not.
        let after = EntryListSQL(EntryQuery(filter: EntryFilter(since: day)), dialect: ProbingDialect.self)
        #expect(rendered(after.matches!).sql.hasSuffix("ORDER BY e.created DESC, e.entry_id DESC LIMIT $2"))
        let before = EntryListSQL(EntryQuery(filter: EntryFilter(until: day)), dialect: ProbingDialect.self)
        #expect(rendered(before.matches!).sql.hasSuffix("e.created <= $1 LIMIT $2"))
    }

    /// A count read from a narrowing's rows does not check its term again where the rows hold
    /// it; every other narrowing is probed as a walk probes it.
    @Test func aCountReadFromANarrowingsRowsChecksOnlyWhatTheyDoNotHold() {
        let rows: SQLFragment = "ranged(night)"
        let held = TermNarrowing("chunks(night)", holdsTerm: true, rows: rows, probe: "check(night)")
        let phrase = TermNarrowing("pairs(a b)", holdsTerm: false, rows: rows, probe: "check(a b)")
        let other = TermNarrowing("chunks(coffee)", holdsTerm: true, probe: "check(coffee)")
        let search = TermSearch(["night", "a b", "coffee"], narrowings: ["night": held, "a b": phrase, "coffee": other])
        let counted = search.counted(from: rows)
        #expect(counted.narrowings["night"]?.condition == "TRUE")
        #expect(counted.narrowings["a b"]?.condition == "check(a b)" && counted.narrowings["coffee"]?.condition == "check(coffee)")
        // Read from other rows, each narrowing is probed.
        #expect(search.counted(from: "ranged(coffee)").narrowings["night"]?.condition == "check(night)")
    }

    /// A count starts from the rows of the narrowing with the fewest, whatever the terms'
    /// order, or from the first term's where none says how many it holds.
    @Test func aCountStartsFromTheNarrowingWithTheFewestRows() {
        let many = TermNarrowing("in(many)", holdsTerm: true, rows: "ids(many)", rowCount: 12_131)
        let few = TermNarrowing("in(few)", holdsTerm: true, rows: "ids(few)", rowCount: 986)
        let unknown = TermNarrowing("in(some)", holdsTerm: true, rows: "ids(some)")
        #expect(TermSearch(["kashaquamo", "zanzibar"], narrowings: ["kashaquamo": many, "zanzibar": few]).narrowingRows == "ids(few)")
        #expect(TermSearch(["zanzibar", "kashaquamo"], narrowings: ["kashaquamo": many, "zanzibar": few]).narrowingRows == "ids(few)")
        #expect(TermSearch(["night", "kashaquamo"], narrowings: ["kashaquamo": many, "night": unknown]).narrowingRows == "ids(many)")
        #expect(TermSearch(["night", "train"], narrowings: ["night": unknown, "train": TermNarrowing("in(t)", holdsTerm: true, rows: "ids(t)")])
            .narrowingRows == "ids(some)")
        // Probed, each narrowing keeps its number.
        #expect(TermSearch(["zanzibar"], narrowings: ["zanzibar": few]).probing.narrowings["zanzibar"]?.rowCount == 986)
    }

    /// Past the count's bound, a page of common words counted range by range reads their rows
    /// range by range where the count's ids say that a walk would pass more than
    /// `mostEntriesWalked` entries (sparse ids), and walks where they are dense; each read
    /// entry is checked for the rest, the words held by the range's read.
    @Test func aDeepPageOfCommonWordsReadsTheirRangesWhereAWalkWouldPassMany() {
        let rows: SQLFragment = "ranged(night)"
        let night = TermNarrowing("chunks(night)", holdsTerm: true, rows: rows, probe: "check(night)", inRange: "in_range(night)")
        let coffee = TermNarrowing("check(coffee)", holdsTerm: true)
        func reading(page: Int, ids: [Int64]) -> (sql: String, values: [SQLValue]) {
            let query = EntryQuery(page: PageRequest(page: page, perPage: 20), filter: EntryFilter(query: "night coffee", order: .newest))
            let sql = EntryListSQL(query, dialect: ProbingDialect.self, narrowings: ["night": night, "coffee": coffee])
            return rendered(sql.reading(matches: ids, dialect: ProbingDialect.self).page)
        }
        let dense = Array(Int64(1)...1_001), sparse = (1...1_001).map { Int64($0) * 50 }
        // One match in 50 entries: page 3 (61 rows) walks 3,050 entries, page 2 2,050.
        let ranged = reading(page: 3, ids: sparse)
        #expect(ranged.sql == """
            RANGES in_range(night) CHECKS e.visibility = 'public' AND term($1) AND term($2) AND match($3) REACH $4 \
            ELSE e.visibility = 'public' AND term($5) AND term($6) AND probe($7) LIMIT $8 OFFSET $9
            """)
        #expect(ranged.values[3] == .integer(61) && ranged.values.suffix(2) == [.integer(21), .integer(40)])
        #expect(!reading(page: 2, ids: sparse).sql.hasPrefix("RANGES"))
        #expect(!reading(page: 50, ids: dense).sql.hasPrefix("RANGES"), "every entry a match: a walk of 1,001")
        // Read in two blocks far apart (the newest range's ids, then the lowest of the next):
        // the entries are as dense as within each block.
        let blocks = Array(Int64(1)...500) + Array(Int64(100_000)...100_500)
        #expect(!reading(page: 50, ids: blocks).sql.hasPrefix("RANGES"))
        #expect(reading(page: 50, ids: blocks.map { $0 * 4 }).sql.hasPrefix("RANGES"), "a walk of 4,004")
        // Under the bound, the count's ids are every match: the page reads them.
        #expect(reading(page: 3, ids: Array(sparse.prefix(1_000))).sql.contains("e.entry_id IN (SELECT e.entry_id FROM entries e WHERE"))
        // A word without rows reads its ranges too, its condition held by the read; one whose
        // matches are sorted does not walk at all.
        let doctor = TermNarrowing("chunks(doctor)", holdsTerm: false, inRange: "in_range(doctor)")
        let walk = TermSearch(["coffee", "doctor"], narrowings: ["coffee": coffee, "doctor": doctor]).rangedWalk
        #expect(walk?.inRange == "in_range(doctor)" && walk?.checked.narrowings["doctor"]?.condition == "TRUE")
        #expect(walk?.checked.narrowings["doctor"]?.holdsTerm == true && walk?.checked.narrowings["coffee"]?.condition == "check(coffee)")
        let sorted = TermNarrowing("chunks(zanzibar)", holdsTerm: true, sortsMatches: true, inRange: "in_range(zanzibar)")
        #expect(TermSearch(["zanzibar"], narrowings: ["zanzibar": sorted]).rangedWalk == nil)
    }

    /// Past the count's bound, a narrowing that sorts its matches has the page read and sort
    /// them with every term's indexed condition, not walk with the probes; tags are probed.
    @Test func aNarrowingThatSortsItsMatchesIsNotWalkedPastTheBound() {
        let sorted = TermNarrowing("chunks(kashaquamo)", holdsTerm: true, sortsMatches: true)
        let common = TermNarrowing("chunks(night)", holdsTerm: true, probe: "check(night)")
        let query = EntryQuery(filter: EntryFilter(query: "kashaquamo night", order: .newest, tags: ["daily"]))
        let sql = EntryListSQL(query, dialect: ProbingDialect.self, narrowings: ["kashaquamo": sorted, "night": common])
        #expect(rendered(sql.reading(totalIsEstimate: true).page).sql == """
            SELECT cols FROM entries e WHERE e.visibility = 'public' \
            AND EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $1) AND term($2) AND term($3) \
            AND match($4) ORDER BY e.created DESC, e.entry_id DESC LIMIT $5 OFFSET $6
            """)
    }

    /// A narrowing that sorts its matches one id range at a time (`inRange`) has the page read
    /// so past the bound: each entry of a range is checked for the rest (the term's own
    /// condition gone where it holds the term, the other terms probed), its tags probed, after
    /// the seek, until the ranges reach the window; else every match is sorted.
    @Test func aNarrowingThatSortsItsMatchesByRangeHasThePageReadTheNewestRanges() {
        let ranged = TermNarrowing("chunks(kashaquamo)", holdsTerm: true, sortsMatches: true, inRange: "ranged(kashaquamo)")
        let pairs = TermNarrowing("pairs(river bridge)", holdsTerm: false, sortsMatches: true)
        let common = TermNarrowing("chunks(night)", holdsTerm: true, probe: "check(night)")
        let search = TermSearch(["river bridge", "kashaquamo", "night"], narrowings: ["kashaquamo": ranged, "river bridge": pairs, "night": common])
        let sort = search.rangedSort
        #expect(sort?.inRange == "ranged(kashaquamo)")
        #expect(sort?.checked.narrowings["kashaquamo"]?.condition == "TRUE" && sort?.checked.narrowings["kashaquamo"]?.holdsTerm == true)
        #expect(sort?.checked.narrowings["river bridge"]?.condition == "pairs(river bridge)")
        #expect(sort?.checked.narrowings["night"]?.condition == "check(night)")
        // A term the narrowing does not hold keeps its check.
        let unheld = TermNarrowing("chunks(kashaquamo)", holdsTerm: false, sortsMatches: true, inRange: "ranged(kashaquamo)")
        #expect(TermSearch(["kashaquamo"], narrowings: ["kashaquamo": unheld]).rangedSort?.checked.narrowings["kashaquamo"]?.holdsTerm == false)
        #expect(TermSearch(["river bridge"], narrowings: ["river bridge": pairs]).rangedSort == nil)

        let query = EntryQuery(
            page: PageRequest(page: 3, perPage: 20), filter: EntryFilter(query: "kashaquamo night", order: .newest, tags: ["daily"])
        )
        let sql = EntryListSQL(query, dialect: ProbingDialect.self, narrowings: ["kashaquamo": ranged, "night": common])
        let page = rendered(sql.reading(totalIsEstimate: true).page)
        #expect(page.sql == """
            RANGES ranged(kashaquamo) CHECKS e.visibility = 'public' \
            AND CASE WHEN EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $1) THEN term($2) AND term($3) ELSE FALSE END \
            AND match($4) REACH $5 ELSE e.visibility = 'public' \
            AND EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = $6) AND term($7) AND term($8) \
            AND match($9) LIMIT $10 OFFSET $11
            """)
        #expect(page.values[4] == .integer(61) && page.values[9] == .integer(21) && page.values[10] == .integer(40))
        // After a seek, the window starts at the top, and each entry read is checked against it.
        let after = EntryQuery(
            page: PageRequest(perPage: 20), filter: query.filter, position: .after(created: Date(timeIntervalSince1970: 0), id: 9)
        )
        let sought = rendered(EntryListSQL(after, dialect: ProbingDialect.self, narrowings: ["kashaquamo": ranged]).reading(totalIsEstimate: true).page)
        #expect(sought.sql.contains("AND (e.created, e.entry_id) < ($5, $6) REACH $7 ELSE"))
        #expect(sought.values[6] == .integer(21))
        // A page past what an `Int` counts reaches every row.
        let far = EntryQuery(page: PageRequest(page: Int.max, perPage: 100), filter: query.filter)
        let farPage = rendered(EntryListSQL(far, dialect: ProbingDialect.self, narrowings: ["kashaquamo": ranged]).reading(totalIsEstimate: true).page)
        #expect(farPage.values[4] == .integer(Int64.max))
    }

    @Test func anExportBatchIsTheOwnersEntriesOrThePublicOnes() {
        let own = rendered(EntryListSQL.exportBatch(afterID: 7, limit: 500, ownerID: 2, dialect: MarkedDialect.self))
        #expect(own.sql == "SELECT cols FROM entries e WHERE e.entry_id > $1 AND +d.user_id = $2 ORDER BY e.entry_id LIMIT $3")
        #expect(own.values == [.integer(7), .integer(2), .integer(500)])
        let anyone = rendered(EntryListSQL.exportBatch(afterID: nil, limit: -1, ownerID: nil, dialect: MarkedDialect.self))
        #expect(anyone.sql == "SELECT cols FROM entries e WHERE e.entry_id > $1 AND e.visibility = 'public' ORDER BY e.entry_id LIMIT $2")
        #expect(anyone.values == [.integer(0), .integer(0)])
    }
}
