import DiaryAPI
import DiaryStore
import Foundation

/// What one engine writes its own way in the SQL of an entry list; `EntryListSQL` writes the
/// rest (who may list, the diary, dates, tags, the count, the newest-first page, its seek and
/// window) once for both. A new kind of term index or a bounded ranking window goes into
/// `termConditions`, `indexMatch` or `rankedPage` of the dialect it concerns.
public protocol EntrySQLDialect {
    /// "SELECT … FROM entries e JOIN …": an entry's columns with its author and tags, which
    /// the engine's row decoder reads.
    static var entryColumns: String { get }
    /// The fewest characters a term needs for the engine's term index to hold it (3 for
    /// trigrams); shorter terms are scanned, and only indexed terms rank a search.
    static var shortestIndexedTerm: Int { get }
    /// A condition no row meets (a searched term holding a NUL).
    static var noRow: String { get }
    /// The conditions the searched terms put on entries `e`, in the count and on every page.
    static func termConditions(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment]
    /// What the count and the newest-first page add for the indexed terms, or nil when
    /// `termConditions` already holds them.
    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment?
    /// A page in relevance order: `filters` (who may list, the diary, dates and tags; not the
    /// terms, whose conditions the dialect writes here itself, so that it can check them on the
    /// text it folds once to rank) and the page's `window` (`LIMIT … OFFSET …`).
    static func rankedPage(_ search: TermSearch, filters: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment
    /// A page in relevance order of exactly the entries `ids`, which the count found to be all
    /// the matches (under its bound), so that they are ranked without being searched for again;
    /// nil where the engine ranks them otherwise (`rankedPage`).
    static func rankedPage(ofMatches ids: [Int64], _ search: TermSearch, viewerID: Int64?, window: SQLFragment) -> SQLFragment?
    /// The entries the terms' indexes find, as a table with their ids in a `rowid` column that
    /// a bounded count walks (the engine's index in its own order) and stops once it has
    /// counted enough; nil to count over entries `e` with `indexMatch` instead.
    static func matchingRows(_ search: TermSearch, viewerID: Int64?) -> SQLFragment?
    /// The index match of the terms as checks on one entry `e` (a seek by id in the index),
    /// for a newest-first page that walks entries newest first and stops once the page is
    /// full: what a term most entries hold needs. Nil when the engine has no such check; the
    /// newest-first page then filters by `indexMatch` whatever the term.
    static func indexProbe(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment]?
    /// The page of the entries `e` that `conditions` select, in `EntryListSQL.newestFirstOrder`,
    /// `window` (`LIMIT … OFFSET …`) applied: `entryColumns` filtered, by default. With
    /// `sortingMatches` (a narrowing's `sortsMatches`), the matches are read from their index
    /// and sorted, not found by walking entries newest first.
    static func newestFirstPage(_ conditions: SQLFragment, window: SQLFragment, sortingMatches: Bool) -> SQLFragment
    /// The page `newestFirstPage(sortingMatches: true)` reads, read from the newest id ranges
    /// of a narrowing's index until they hold the window's matches, where the engine can tell
    /// that no older range holds a newer one (else as that page); nil by default, for an
    /// engine whose index has no ranges.
    static func newestFirstPage(_ conditions: SQLFragment, window: SQLFragment, readingRanges: RangedMatches) -> SQLFragment?
    /// Whether entry `e` is one of `ids` (at most the count's bound and one), as one value, so
    /// that the statement's text is the same whatever their number.
    static func isOneOf(_ ids: [Int64]) -> SQLFragment
    /// Whether entry `e` is in one of the diaries of `userID`, for `EntryAccess.listable`:
    /// `EntryAccess.inDiaryOf` by default.
    static func inDiaryOf(_ userID: Int64) -> SQLFragment
    /// Whether entry `e` holds `tag`, asked of each entry read before its terms
    /// (`EntryListSQL.TagMatch.probedFirst`): a seek in the tags' primary key by default.
    static func holdsTag(_ tag: String) -> SQLFragment
    /// Whether the entry of `row`, a row of `entry_tags` a statement reads anyway, holds `tag`
    /// too, from the row's copy of all its entry's tags (`all_tags`: SQLite schema v11,
    /// PostgreSQL v14): no seek (`EntryListSQL.TagMatch.carried`).
    static func carriesTag(_ tag: String, row: String) -> SQLFragment
    /// How many of `termConditions(search)`, first in it, are look-ups that cost less than a
    /// tag's probe (an id among ids gathered before), which a read one entry at a time asks
    /// before the tags all the same: none by default.
    static func leadingLookUps(_ search: TermSearch) -> Int
    /// The count `matchingRows` leads, its rows read highest id first, each checked
    /// (`checked`), `window` applied; nil where the engine reads them in its index's own order
    /// (the default). Asked for a range after a date: ids grow as entries are posted, so the
    /// rows in the range come first.
    static func matchingRowsNewestFirst(_ search: TermSearch, viewerID: Int64?, checked: SQLFragment, window: SQLFragment) -> SQLFragment?
    /// Whether a count over entries `e` after a date asks for them newest first, so that a
    /// planner that would scan the table from its oldest rows walks the index on (created,
    /// entry_id) from the newest instead: false by default.
    static var countsNewestFirstAfterADate: Bool { get }
}

extension EntrySQLDialect {
    public static var shortestIndexedTerm: Int { 3 }
    public static func matchingRows(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? { nil }
    public static func rankedPage(ofMatches ids: [Int64], _ search: TermSearch, viewerID: Int64?, window: SQLFragment) -> SQLFragment? {
        nil
    }
    public static func indexProbe(_ search: TermSearch, viewerID: Int64?) -> [SQLFragment]? { nil }
    public static func inDiaryOf(_ userID: Int64) -> SQLFragment { EntryAccess.inDiaryOf(userID) }
    public static func leadingLookUps(_ search: TermSearch) -> Int { 0 }
    public static var countsNewestFirstAfterADate: Bool { false }
    public static func matchingRowsNewestFirst(
        _ search: TermSearch, viewerID: Int64?, checked: SQLFragment, window: SQLFragment
    ) -> SQLFragment? {
        nil
    }
    public static func holdsTag(_ tag: String) -> SQLFragment { EntryListSQL.probe(of: tag) }
    public static func newestFirstPage(_ conditions: SQLFragment, window: SQLFragment, readingRanges: RangedMatches) -> SQLFragment? {
        nil
    }
    public static func newestFirstPage(_ conditions: SQLFragment, window: SQLFragment, sortingMatches: Bool) -> SQLFragment {
        "\(sql: entryColumns) WHERE \(conditions) ORDER BY \(sql: EntryListSQL.newestFirstOrder) \(window)"
    }
}

/// A condition an engine looked up for one term before planning, which every entry holding
/// the term meets.
public struct TermNarrowing: Sendable {
    public let condition: SQLFragment
    /// Whether every entry the condition selects holds the term, so that its text need not be
    /// checked: the index found words that hold the term, not pieces of it.
    public let holdsTerm: Bool
    /// The entries the condition selects as a table with their ids in a `rowid` column, for a
    /// count to start from (`EntrySQLDialect.matchingRows`); nil where the engine has none
    /// (PostgreSQL's narrowings are conditions an index serves, but for common words counted
    /// together, whose rows are read one range of ids at a time).
    public let rows: SQLFragment?
    /// How many entries `rows` holds, where the engine knows: a count starts from the rows of
    /// the narrowing with the fewest (`TermSearch.narrowingRows`).
    public let rowCount: Int?
    /// Whether a newest-first page reads the entries the condition's index finds and sorts
    /// them, rather than walking entries newest first and checking each: for a term the
    /// engine knows is rare where its planner cannot (`newestFirstPage(sortingMatches:)`).
    public let sortsMatches: Bool
    /// What checks one entry for the term where entries are read one at a time (a walk
    /// newest first, a count led by a tag), when that costs less there than `condition`,
    /// which an index serves; every entry it selects holds the term. Nil: `condition` does.
    public let probe: SQLFragment?
    /// For a narrowing that sorts its matches, `condition` within one range of entry ids,
    /// `ranges.id_range`, where the engine's index is keyed by range: a page then reads the
    /// newest ranges until they hold its window (`RangedMatches`). Nil: it reads every match.
    /// For another narrowing, a page reads it so where a walk would pass many entries for its
    /// matches (`TermSearch.rangedWalk`). Every entry it finds in a range holds the term.
    /// Settable, so that an engine that finds ranges cost more beside the other terms can take
    /// them away from a narrowing it made.
    public var inRange: SQLFragment?

    public init(
        _ condition: SQLFragment, holdsTerm: Bool, rows: SQLFragment? = nil, rowCount: Int? = nil, sortsMatches: Bool = false,
        probe: SQLFragment? = nil, inRange: SQLFragment? = nil
    ) {
        self.condition = condition
        self.holdsTerm = holdsTerm
        self.rows = rows
        self.rowCount = rowCount
        self.sortsMatches = sortsMatches
        self.probe = probe
        self.inRange = inRange
    }
}

/// How a newest-first page reads the matches a narrowing's index finds one range of entry ids
/// at a time, newest first (`TermNarrowing.inRange`), and sorts them.
public struct RangedMatches: Sendable {
    /// The narrowing's condition within the range `ranges.id_range`.
    public let inRange: SQLFragment
    /// The page's other conditions, which each entry read in a range is checked against: the
    /// narrowed term's check where its index does not hold it, the other terms' probes, the
    /// tags, who may list and the seek.
    public let checks: SQLFragment
    /// How many rows the page's window reaches (its offset and its limit): the ranges read,
    /// newest first, until they hold as many matches.
    public let reach: Int
    /// Whether the page the engine falls back on, where an older range holds a newer entry,
    /// walks entries newest first (common words, `TermSearch.rangedWalk`) rather than reading
    /// every match from the narrowing's index and sorting them (a rare word).
    public var fallbackWalks = false
}

/// Which index leads the count of a search that asks terms and tags together, where the engine
/// measured which holds fewer entries (`TermSearch.countLeader`).
public enum CountLeader: Sendable {
    /// The terms': the engine's rows of them (`EntrySQLDialect.matchingRows`), else the indexes
    /// their narrowings' conditions are served by; each entry is then probed for the tags.
    case terms
    /// The first tag's: each of its entries is checked for the terms one at a time
    /// (`EntrySQLDialect.indexProbe`).
    case firstTag
    /// The date range's: each entry in it, read from the index on (created, entry_id), is
    /// checked for the terms as the first tag's are, and probed for the tags. A common word
    /// led the count of a search within two days (277 entries) through its 970,000 rows at a
    /// million entries: 855 ms on SQLite.
    case dateRange
}

/// The terms of a search, sorted by what the indexes can do with them.
public struct TermSearch: Sendable {
    public let terms: [String]
    /// The terms the index holds: long enough, and without a NUL.
    public let indexed: [String]
    /// A term holds a NUL: no title or body does (the API refuses them), so nothing matches.
    public let matchesNothing: Bool
    /// The engine found the terms too short for the ranked index in fewer entries the viewer
    /// may list than the count's bound: their own index drives the count and the page, the
    /// indexed terms are checked entry by entry, and the page comes newest first. Driven by
    /// the indexed terms instead, `coffee zz` read each of the 970,000 entries holding
    /// "coffee" to find none holding "zz": 8.8 s at a million entries.
    public let shortTermsLead: Bool
    /// Conditions the engine looked up for some indexed terms before planning, each narrowing
    /// the entries that may hold its term to those an index of words finds (the chunks of
    /// PostgreSQL's schema v9 and SQLite's v8), or, for a term it found in too many entries for that, checking the
    /// text more cheaply than the plain condition. A term without one is searched by the
    /// engine's plain term condition.
    public let narrowings: [String: TermNarrowing]
    /// Which index leads the count when tags are asked beside the terms, as the engine found
    /// it. Nil: the engine's rows of the terms where it has them (`matchingRows`), else the
    /// first tag, each of its entries checked against the terms' index (`indexMatch`).
    public let countLeader: CountLeader?
    let shortestIndexed: Int

    public init(
        _ terms: [String], shortestIndexed: Int = 3, shortTermsLead: Bool = false, narrowings: [String: TermNarrowing] = [:],
        countLeader: CountLeader? = nil
    ) {
        self.terms = terms
        self.narrowings = narrowings
        self.countLeader = countLeader
        self.shortestIndexed = shortestIndexed
        indexed = terms.filter { Self.isIndexed($0, shortest: shortestIndexed) }
        matchesNothing = terms.contains { $0.contains("\0") }
        self.shortTermsLead = shortTermsLead && !indexed.isEmpty && indexed.count < terms.count
    }

    /// Whether a narrowing of one of the terms has its newest-first page sort its matches
    /// (`TermNarrowing.sortsMatches`).
    public var sortsMatches: Bool {
        narrowings.values.contains(where: \.sortsMatches)
    }

    /// The search as entries read one at a time check it: each narrowing with a `probe` is
    /// that probe.
    public var probing: TermSearch {
        guard narrowings.values.contains(where: { $0.probe != nil }) else { return self }
        let probes = narrowings.mapValues { narrowing in
            narrowing.probe.map { TermNarrowing($0, holdsTerm: true, rows: narrowing.rows, rowCount: narrowing.rowCount) } ?? narrowing
        }
        return with(narrowings: probes)
    }

    /// The search as a count that reads `rows` (`EntrySQLDialect.matchingRows`) checks each of
    /// them: a narrowing whose rows those are, and which holds its term, needs no check, as
    /// every row holds the term; every other narrowing is as `probing` has it. Checked again,
    /// the 1,001 entries of `night train` read from PostgreSQL's ranged chunk index took 8 ms
    /// more at a million entries (`strpos` in each text), where the rows alone took 3.5.
    public func counted(from rows: SQLFragment) -> TermSearch {
        let held = narrowings.mapValues { narrowing in
            narrowing.rows == rows && narrowing.holdsTerm ? TermNarrowing("TRUE", holdsTerm: true, rows: rows, rowCount: narrowing.rowCount) : narrowing
        }
        return with(narrowings: held).probing
    }

    private func with(narrowings: [String: TermNarrowing]) -> TermSearch {
        TermSearch(terms, shortestIndexed: shortestIndexed, shortTermsLead: shortTermsLead, narrowings: narrowings, countLeader: countLeader)
    }

    /// The first indexed term's narrowing that sorts its matches one id range at a time
    /// (`TermNarrowing.inRange`), with the search as each entry read so is checked: that
    /// term's condition gone (the range's read is it) but its check where the narrowing does
    /// not hold the term, every other narrowing probed.
    public var rangedSort: (inRange: SQLFragment, checked: TermSearch)? {
        let ranged = indexed.lazy.compactMap { term in self.narrowings[term].map { (term, $0) } }
        guard let (term, narrowing) = ranged.first(where: { $0.1.sortsMatches && $0.1.inRange != nil }), let inRange = narrowing.inRange
        else { return nil }
        var checked = narrowings
        checked[term] = TermNarrowing("TRUE", holdsTerm: narrowing.holdsTerm)
        return (inRange, with(narrowings: checked).probing)
    }

    /// The first indexed term's narrowing that can read its entries one id range at a time
    /// (`inRange`) but does not sort its matches, within one range, with the search as each
    /// entry read so is checked: what a deep page reads instead of walking
    /// (`EntryListSQL.rangedWalkingPage`). Common words whose count reads them so
    /// (`TermNarrowing.rows`) need no check (`counted(from:)`); another word, whose entries the
    /// planner finds, needs none either, as every entry the range's read finds holds it.
    public var rangedWalk: (inRange: SQLFragment, checked: TermSearch)? {
        let ranged = indexed.lazy.compactMap { term in self.narrowings[term].map { (term, $0) } }
        guard let (term, narrowing) = ranged.first(where: { $0.1.inRange != nil && !$0.1.sortsMatches }), let inRange = narrowing.inRange
        else { return nil }
        if let rows = narrowing.rows { return (inRange, counted(from: rows)) }
        var checked = narrowings
        checked[term] = TermNarrowing("TRUE", holdsTerm: true)
        return (inRange, with(narrowings: checked).probing)
    }

    /// The rows of the indexed term whose narrowing has the fewest (`TermNarrowing.rowCount`;
    /// the first where none is known), for an engine's count to start from
    /// (`EntrySQLDialect.matchingRows`): each of them is then checked for the others. On SQLite
    /// at a million entries, `kashaquamo zanzibar` read kashaquamo's 12,131 rows, each checked
    /// for one of zanzibar's 986, in 24 ms (a debug build); from zanzibar's, 4.5.
    public var narrowingRows: SQLFragment? {
        let withRows = indexed.compactMap { narrowings[$0] }.filter { $0.rows != nil }
        return withRows.enumerated().min { ($0.element.rowCount ?? .max, $0.offset) < ($1.element.rowCount ?? .max, $1.offset) }?.element.rows
    }

    /// Whether the page can come in relevance order: the ranked index drives it.
    public var ranks: Bool { !indexed.isEmpty && !shortTermsLead }

    /// Whether the index can find `term` (else it is scanned for).
    public func isIndexed(_ term: String) -> Bool {
        Self.isIndexed(term, shortest: shortestIndexed)
    }

    static func isIndexed(_ term: String, shortest: Int) -> Bool {
        term.count >= shortest && !term.contains("\0")
    }
}

/// The SQL of one list, both statements with their values: the count of what the filter
/// finds, and the page (newest first with a keyset seek, or by relevance).
public struct EntryListSQL: Sendable {
    /// True for relevance order: positions are offsets.
    public let ranked: Bool
    public let limit: Int
    public let offset: Int
    /// True when nothing but the diary narrows the list: the diaries' counters, as the viewer
    /// sees them, are the total, and `matches` need not run.
    public let countedByDiaries: Bool
    /// The ids of the entries a filter finds, up to `countBound + 1` of them, in no order: their
    /// number is the count (past the bound, an estimate: `total(counted:)`), and under the bound
    /// a newest-first page is read from them (`reading(matches:dialect:)`). Nil for a list the
    /// diaries' counters count (`countedByDiaries`).
    public let matches: SQLFragment?
    /// The most a filter's count counts (`EntryPage.countedMatches`); nil for a list the
    /// diaries' counters count (`countedByDiaries`).
    public let countBound: Int?
    /// The page: by relevance, or newest first with the matches of the terms' index or the
    /// tags' gathered first, which costs what the matches are (a rare term or tag).
    public let page: SQLFragment
    /// The newest-first page that walks entries newest first and checks each against the
    /// terms' index and the tags, which costs what the page is when most entries match (a
    /// common term or tag), or walks a tag's rows (`tagWalk`) where the tag led the count or
    /// the list has no terms, or, where a narrowing sorts its matches, reads and sorts them; nil
    /// for a list the diaries count, or with terms the engine cannot check on one entry.
    public let walkingPage: SQLFragment?
    /// The page `walkingPage` reads instead where a walk would pass many entries for its
    /// matches (`mostEntriesWalked`): common words' rows read one id range at a time from the
    /// newest (`TermSearch.rangedWalk`); nil where the engine has no ranges.
    public let rangedWalkingPage: SQLFragment?
    /// Where `walkingPage` starts: at the top after a seek, after the results of a position
    /// that a ranked page handed out, else at the requested page.
    public let walkOffset: Int
    /// The terms as the statements search them (with the engine's `shortTermsLead` and
    /// `narrowings`), for an engine that orders a page itself.
    public let search: TermSearch
    /// The seek of a page after a given entry, and the page's window: what a page of the
    /// matches' ids applies to them.
    let seek: [SQLFragment]
    let window: SQLFragment
    /// Who asks, for a ranked page of the count's ids (`EntrySQLDialect.rankedPage(ofMatches:)`).
    let viewerID: Int64?

    /// The statements of `query`; `shortTermsLead`, `narrowings` and `countLeader` as the engine
    /// found them (`TermSearch`).
    public init<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, dialect: Dialect.Type, shortTermsLead: Bool = false, narrowings: [String: TermNarrowing] = [:],
        countLeader: CountLeader? = nil
    ) {
        let search = TermSearch(
            query.filter.terms, shortestIndexed: Dialect.shortestIndexedTerm, shortTermsLead: shortTermsLead, narrowings: narrowings,
            countLeader: Self.leader(countLeader, of: query.filter)
        )
        self.search = search
        limit = max(query.page.perPage, 0)
        ranked = search.ranks && query.filter.effectiveOrder == .relevance
        offset = Self.offset(query, ranked: ranked)
        let filter = query.filter
        countedByDiaries = filter.query == nil && filter.since == nil && filter.until == nil && filter.tags.isEmpty
        let conditions = Self.conditions(query, search, tags: .gathered, Dialect.self)
        let filtered = Self.filtered(conditions, search, viewerID: query.viewerID, Dialect.self)
        // Without a kept count, every filter counts up to the bound, so that a tag on a third of
        // a million entries costs what the bound's entries cost.
        countBound = countedByDiaries ? nil : EntryPage.countedMatches
        matches = countBound.map { Self.matches(query, search, filtered: filtered, bound: $0, Dialect.self) }
        var seek: [SQLFragment] = []
        if case .after(let created, let id) = query.position {
            // A seek on the index (created DESC, entry_id DESC): page 5,000 costs what page 1 costs.
            seek.append("(e.created, e.entry_id) < (\(created), \(id))")
        }
        walkOffset = Self.offset(query, ranked: false, walking: true)
        let walkWindow: SQLFragment = "LIMIT \(limit + 1) OFFSET \(walkOffset)"
        // A tag that led the count (`CountLeader.firstTag`, a tag on few entries) leads the
        // walk too: its rows newest first (`tagWalk`) hold only its entries, where a walk of
        // every entry newest first passes all the others on the way. So does the first tag of a
        // list without terms, unless a diary is asked, whose own index may reach its page sooner.
        let tagLeads = search.countLeader == .firstTag
        // A page past what an `Int` counts (`PageRequest.offset`) reaches every row.
        let (reach, overflow) = walkOffset.addingReportingOverflow(limit + 1)
        var rangedWalkingPage: SQLFragment?
        if countedByDiaries || search.matchesNothing {
            walkingPage = nil
        } else if filter.terms.isEmpty {
            if tagLeads || query.diaryID == nil, let tag = filter.tags.first {
                walkingPage = Self.tagWalk(query, tag, search, seek: seek, window: walkWindow, Dialect.self)
            } else {
                let walked = Self.conditions(query, search, tags: .probed, Dialect.self)
                walkingPage = Self.newestFirst(walked + seek, window: walkWindow, search, Dialect.self)
            }
        } else if search.sortsMatches {
            // Not a walk: the page reads the matches a narrowing's index finds and sorts them, so
            // the other terms join that read as their indexes' conditions, where their probes
            // would check the text of each match. `kashaquamo night` (12,131 and 141,440 of a
            // million entries) took 114 ms so on PostgreSQL, 18 ms in one scan of the chunk index.
            // Where the narrowing's index is keyed by id range, the page reads the newest ranges
            // first: `kashaquamo`'s page read 216 matches so, where sorting all took 19–47 ms.
            let indexed = Self.termsIndexed(query, search, Dialect.self)
            let ranged = Self.rangedMatches(query, search, seek: seek, reach: overflow ? Int.max : reach, Dialect.self).flatMap {
                Dialect.newestFirstPage((indexed + seek).joined(separator: " AND "), window: walkWindow, readingRanges: $0)
            }
            walkingPage = ranged ?? Self.newestFirst(indexed + seek, window: walkWindow, search, Dialect.self)
        } else if let probe = Dialect.indexProbe(search, viewerID: query.viewerID) {
            if tagLeads, let tag = filter.tags.first {
                walkingPage = Self.tagWalk(query, tag, search.probing, checking: probe, seek: seek, window: walkWindow, Dialect.self)
            } else {
                let walked = Self.conditions(query, search.probing, tags: .probedFirst, checking: probe, Dialect.self)
                walkingPage = Self.newestFirst(walked + seek, window: walkWindow, search, Dialect.self)
                if let (inRange, checked) = search.rangedWalk {
                    var ranged = Self.rangedMatches(query, checked, inRange: inRange, seek: seek, reach: overflow ? Int.max : reach, Dialect.self)
                    ranged.fallbackWalks = true
                    rangedWalkingPage = Dialect.newestFirstPage((walked + seek).joined(separator: " AND "), window: walkWindow, readingRanges: ranged)
                }
            }
        } else {
            walkingPage = nil
        }
        self.rangedWalkingPage = rangedWalkingPage
        // One row past the page says that a next page exists.
        let window: SQLFragment = "LIMIT \(limit + 1) OFFSET \(offset)"
        self.seek = seek
        self.window = window
        viewerID = query.viewerID
        if ranked {
            let filters = Self.conditions(query, search, tags: .gathered, withTerms: false, Dialect.self)
            page = Dialect.rankedPage(search, filters: filters, viewerID: query.viewerID, window: window)
            return
        }
        page = Self.newestFirst(filtered + seek, window: window, search, Dialect.self)
    }

    /// The API's order, which the indexes on (created DESC, entry_id DESC) already have.
    public static let newestFirstOrder = "e.created DESC, e.entry_id DESC"

    static func newestFirst<Dialect: EntrySQLDialect>(
        _ filtered: [SQLFragment], window: SQLFragment, _ search: TermSearch?, _: Dialect.Type
    ) -> SQLFragment {
        Dialect.newestFirstPage(filtered.joined(separator: " AND "), window: window, sortingMatches: search?.sortsMatches ?? false)
    }

    /// How a page reaching `reach` matches reads them one id range at a time, where a
    /// narrowing that sorts them can (`TermSearch.rangedSort`): each entry read is checked
    /// for the rest of `query`, its tags probed, and after `seek`.
    static func rangedMatches<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, _ search: TermSearch, seek: [SQLFragment], reach: Int, _: Dialect.Type
    ) -> RangedMatches? {
        search.rangedSort.map { sort in rangedMatches(query, sort.checked, inRange: sort.inRange, seek: seek, reach: reach, Dialect.self) }
    }

    /// The entries `inRange` finds in one id range, each checked for `checked` and the rest of
    /// `query`, its tags probed, and after `seek`, until they hold `reach`.
    static func rangedMatches<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, _ checked: TermSearch, inRange: SQLFragment, seek: [SQLFragment], reach: Int, _: Dialect.Type
    ) -> RangedMatches {
        let checks = filtered(conditions(query, checked, tags: .probedFirst, Dialect.self), checked, viewerID: query.viewerID, Dialect.self)
        return RangedMatches(inRange: inRange, checks: (checks + seek).joined(separator: " AND "), reach: reach)
    }

    /// The page newest first, `window` applied, of `query`'s entries read from the rows of
    /// `tag` in the index on (tag, created DESC, entry_id DESC) (schema v9 on SQLite, v12 on
    /// PostgreSQL), which stops once its page is full and passes no entry without the tag.
    /// Gathered and sorted, page 500 of the tag `night` (13,238 of a million entries) looked
    /// each of them up, 39–46 ms on PostgreSQL; walked over every entry newest first, it passed
    /// 760,000 of them.
    ///
    /// Without terms, the list's conditions and `seek` are asked of the rows themselves
    /// (`tagRows`): the index holds all they read, and only the page's entries are looked up.
    /// With terms (`checks`: the engine's probe of them), each row's entry is read and
    /// checked, once the row says that it holds the other tags (`TagMatch.carried`).
    static func tagWalk<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, _ tag: String, _ search: TermSearch, checking checks: [SQLFragment]? = nil, seek: [SQLFragment],
        window: SQLFragment, _: Dialect.Type
    ) -> SQLFragment {
        let rows: SQLFragment
        if let checks {
            let checked = conditions(query, search, tags: .carried(row: "t"), leavingOutTag: tag, checking: checks, Dialect.self)
            let dates = dateRange(of: query.filter, on: "t")
            rows = """
                SELECT e.entry_id FROM entry_tags t JOIN entries e ON e.entry_id = t.entry_id \
                WHERE \((["t.tag = \(tag)"] + dates + checked + seek).joined(separator: " AND ")) \
                ORDER BY t.created DESC, t.entry_id DESC \(window)
                """
        } else {
            rows = "\(tagRows(query, tag, search, seek: seek, Dialect.self)) ORDER BY \(sql: newestFirstOrder) \(window)"
        }
        return newestFirst(["e.entry_id IN (\(rows))"], window: "", nil, Dialect.self)
    }

    /// The ids of `query`'s entries among the rows of `tag`, named `e`, for a list without
    /// terms: a tag's row carries the entry's columns that the list's conditions read (who may
    /// list, the diary, the dates) and all the entry's tags (`TagMatch.carried`), so no entry
    /// is read. What a page of the list walks (`tagWalk`) and its count reads (`matches`).
    static func tagRows<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, _ tag: String, _ search: TermSearch, seek: [SQLFragment] = [], _: Dialect.Type
    ) -> SQLFragment {
        let listed = conditions(query, search, tags: .carried(row: "e"), leavingOutTag: tag, Dialect.self)
        return "SELECT e.entry_id FROM entry_tags e WHERE \((["e.tag = \(tag)"] + listed + seek).joined(separator: " AND "))"
    }

    /// `leader`, where `filter` has what it names: a tag, a date range.
    static func leader(_ leader: CountLeader?, of filter: EntryFilter) -> CountLeader? {
        switch leader {
        case .firstTag?, .terms?: filter.tags.isEmpty ? nil : leader
        case .dateRange?: dateRange(of: filter).isEmpty ? nil : leader
        case nil: nil
        }
    }

    /// The conditions of `filter`'s date range on entries `e` (or on `table`, which has their
    /// `created`), none without one: what the index on (created, entry_id) serves, and what an
    /// engine counts to weigh the range against the terms (`CountLeader.dateRange`).
    public static func dateRange(of filter: EntryFilter, on table: String = "e") -> [SQLFragment] {
        var conditions: [SQLFragment] = []
        if let since = filter.since { conditions.append("\(sql: table).created >= \(since)") }
        if let until = filter.until { conditions.append("\(sql: table).created <= \(until)") }
        return conditions
    }

    /// The ids of at most `bound + 1` of a list's entries, walking an index of the matches, so
    /// that a word or a tag in most entries costs `bound` rows, not all of them: the one the
    /// engine found to lead (`TermSearch.countLeader`), else its rows of the terms (each tag
    /// then probed by entry), else the first tag's.
    static func matches<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, _ search: TermSearch, filtered: [SQLFragment], bound: Int, _: Dialect.Type
    ) -> SQLFragment {
        let window: SQLFragment = "LIMIT \(bound + 1)"
        let leader = search.countLeader
        let termsRows = leader == nil || leader == .terms ? Dialect.matchingRows(search, viewerID: query.viewerID) : nil
        if !search.matchesNothing, !search.terms.isEmpty, let rows = termsRows {
            return counted(query, search, from: rows, window: window, Dialect.self)
        }
        if search.terms.isEmpty, let tag = query.filter.tags.first {
            // The first tag's rows alone, which carry what the conditions read, as a page of
            // them does (`tagWalk`): joined to the entries, the count of the tag `night` (13,238
            // of a million entries) took 14.7 ms on PostgreSQL, 0.5 so; `daily` within a month
            // is a range of its index (30 ms led by the range).
            return "\(tagRows(query, tag, search, Dialect.self)) \(window)"
        }
        // Not where a narrowing's index finds few matches (`sortsMatches`): read from it, they
        // cost less than a walk (`kashaquamo`, 1.2 % of a million entries, since 2021 on
        // PostgreSQL: 14 ms read from the chunk index, 39 walked).
        let newestFirst: SQLFragment = query.filter.since != nil && Dialect.countsNewestFirstAfterADate && !search.sortsMatches
            ? "ORDER BY \(sql: newestFirstOrder) " : ""
        if leader == .terms {
            return "SELECT e.entry_id FROM entries e WHERE \(termsIndexed(query, search, Dialect.self).joined(separator: " AND ")) \(newestFirst)\(window)"
        }
        let probes = leader == .firstTag || leader == .dateRange ? Dialect.indexProbe(search, viewerID: query.viewerID) : nil
        let checks = probes ?? Dialect.indexMatch(search, viewerID: query.viewerID).map { [$0] } ?? []
        if leader == .dateRange {
            let probed = conditions(query, search.probing, tags: .probedFirst, checking: checks, Dialect.self)
            return "SELECT e.entry_id FROM entries e WHERE \(probed.joined(separator: " AND ")) \(window)"
        }
        if let tag = query.filter.tags.first {
            // Joined, not `IN (SELECT …)`, which SQLite would first build into a list of every
            // entry holding the tag (44 ms for a tag on 317,000 entries, whatever the bound).
            let probed = conditions(query, search.probing, tags: .carried(row: "m"), leavingOutTag: tag, checking: checks, Dialect.self)
            // After a date, the tag's entries highest id first (the index on (tag, entry_id)
            // read backwards), as `matchingRowsNewestFirst` reads the terms': led from the
            // lowest, `daily` (317,183 of a million entries) since 2030 passed 170,000 before
            // the range, 238 ms on SQLite.
            let order: SQLFragment = query.filter.since == nil ? "" : "ORDER BY m.entry_id DESC "
            return """
                SELECT e.entry_id FROM entry_tags m JOIN entries e ON e.entry_id = m.entry_id \
                WHERE m.tag = \(tag) AND \(probed.joined(separator: " AND ")) \(order)\(window)
                """
        }
        return "SELECT e.entry_id FROM entries e WHERE \(filtered.joined(separator: " AND ")) \(newestFirst)\(window)"
    }

    /// The count read from the terms' `rows` (`EntrySQLDialect.matchingRows`), each checked for
    /// the rest of `query`: highest id first after a date where the engine can
    /// (`matchingRowsNewestFirst`). The tags are joined, not asked first: the rows' words are
    /// mostly held, not checked, and a join's seek costs less than a `CASE`'s subquery (`night`
    /// with the tag `daily`: 9.6 ms against 14 at a million entries on PostgreSQL).
    static func counted<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, _ search: TermSearch, from rows: SQLFragment, window: SQLFragment, _: Dialect.Type
    ) -> SQLFragment {
        let checked = conditions(query, search.counted(from: rows), tags: .probed, Dialect.self).joined(separator: " AND ")
        if query.filter.since != nil, let newest = Dialect.matchingRowsNewestFirst(search, viewerID: query.viewerID, checked: checked, window: window) {
            return newest
        }
        return "SELECT e.entry_id FROM \(rows) m JOIN entries e ON e.entry_id = m.rowid WHERE \(checked) \(window)"
    }

    /// The conditions of `query` with its terms as their indexes serve them (not their probes)
    /// and each tag probed by entry: for a read that the terms' indexes lead.
    static func termsIndexed<Dialect: EntrySQLDialect>(_ query: EntryQuery, _ search: TermSearch, _: Dialect.Type) -> [SQLFragment] {
        filtered(conditions(query, search, tags: .probed, Dialect.self), search, viewerID: query.viewerID, Dialect.self)
    }

    /// The page to read once the count is known, with how its positions go on: when the count
    /// reached its bound (the matches are many, so a page of them is near the top), the walk,
    /// newest first, even for relevance order: bm25 would first count every entry holding each
    /// term (its weight, which is next to nil for a word in most entries), 0.27 s for a word in
    /// 970,000 of 1,000,000 entries whatever the page. Else the page as asked.
    public func reading(totalIsEstimate: Bool) -> (page: SQLFragment, ranked: Bool, offset: Int) {
        guard totalIsEstimate, let walkingPage else { return (page, ranked, offset) }
        return (walkingPage, false, walkOffset)
    }

    /// The page to read once `matches` found `ids` (nil: the diaries' counters counted the list,
    /// and `matches` did not run): as `reading(totalIsEstimate:)`, but a newest-first page under
    /// the bound comes from `ids`, the very entries it would search again, in the same
    /// transaction. A rare word whose trigrams are all common (`zanzibar`
    /// in the seeded text) reads every trigram's list whole each time it is searched: about
    /// 150 ms at a million entries, which the page paid a second time.
    public func reading<Dialect: EntrySQLDialect>(
        matches ids: [Int64]?, dialect: Dialect.Type
    ) -> (page: SQLFragment, ranked: Bool, offset: Int) {
        guard let ids else { return (page, ranked, offset) }
        let isEstimate = total(counted: ids.count).isEstimate
        if ranked, !isEstimate, let rankedIDs = Dialect.rankedPage(ofMatches: ids, search, viewerID: viewerID, window: window) {
            return (rankedIDs, true, offset)
        }
        if isEstimate, let rangedWalkingPage, Self.entriesWalked(toReach: walkOffset, limit, matches: ids) > Double(Self.mostEntriesWalked) {
            return (rangedWalkingPage, false, walkOffset)
        }
        guard !isEstimate, !ranked else { return reading(totalIsEstimate: isEstimate) }
        // Each match looked up by id and sorted (at most the bound's).
        return (Self.pageOfIDs([Dialect.isOneOf(ids)] + seek, window: window, Dialect.self), false, offset)
    }

    /// How many entries a walk newest first may pass before a page reads common words' rows
    /// range by range instead (`rangedWalkingPage`). A walk checks each entry it passes: on
    /// PostgreSQL at a million entries, about 2.4 µs an entry with a tag's probe first, 11 µs
    /// with two words' checks. Reading ranges costs about 3 ms a range, and the matches in the
    /// lowest range read are all checked. Walked and read so (ms, medians):
    ///
    /// | page, newest first | entries walked | walked | read by range |
    /// |---|---|---|---|
    /// | `night` with the tag `night`, page 20 | 212,000 | 480–523 | 59 |
    /// | the same, page 90 | 960,000 | 1,670 | 101 |
    /// | `night`, page 50 | 7,000 | 46 | 16 |
    /// | `night train`, page 10 | 3,300 | 37 | 17 |
    /// | `night` with the tag `daily`, page 5 | 2,200 | 29 | 40 |
    static let mostEntriesWalked = 3_000

    /// About how many entries a walk newest first passes to its offset `offset` and `limit`
    /// and one more, when the count found `ids` (its bound and one): as many as the mean gap
    /// between neighbouring ids for each row (an entry's id grows with its date, but for
    /// imports). The widest hundredth of the gaps are left out: a count may read its ids in
    /// blocks apart, as PostgreSQL's ranges are read (all of the newest range's, then the
    /// lowest of the next), and the gap between two blocks says nothing of the entries' density.
    static func entriesWalked(toReach offset: Int, _ limit: Int, matches ids: [Int64]) -> Double {
        let sorted = ids.sorted()
        let gaps = zip(sorted.dropFirst(), sorted).map { Double($0) - Double($1) }.sorted()
        let kept = gaps.prefix(gaps.count - gaps.count / 100)
        guard !kept.isEmpty else { return 0 }
        return (Double(offset) + Double(limit) + 1) * kept.reduce(0, +) / Double(kept.count)
    }

    /// The page of the entries `e` that `conditions` select, newest first, `window` applied:
    /// the page's ids first, then the page's rows alone read with their author and tags.
    /// Sorted whole, each row's author and tags would be read for every entry selected.
    static func pageOfIDs<Dialect: EntrySQLDialect>(_ conditions: [SQLFragment], window: SQLFragment, _: Dialect.Type) -> SQLFragment {
        let pageIDs: SQLFragment = """
            e.entry_id IN (SELECT e.entry_id FROM entries e WHERE \(conditions.joined(separator: " AND ")) \
            ORDER BY \(sql: newestFirstOrder) \(window))
            """
        return newestFirst([pageIDs], window: "", nil, Dialect.self)
    }

    /// The total a store answers for `counted`, the number of ids `matches` found: past
    /// `countBound`, the bound, as an estimate.
    public func total(counted: Int) -> (total: Int, isEstimate: Bool) {
        guard let countBound, counted > countBound else { return (counted, false) }
        return (countBound, true)
    }

    /// How a condition on a tag finds its entries.
    enum TagMatch: Equatable {
        /// From the tag's index: the entries holding it lead, then sorted (a page of a few).
        case gathered
        /// A seek by entry in the tags' primary key: a walk newest first checks each entry,
        /// and stops once its page is full, however many entries hold the tag.
        case probed
        /// As `probed`, each entry's tags checked before its terms, where the terms are checks
        /// of each entry read (a walk, a count led by a tag, a range's read), not conditions an index
        /// serves: a tag's probe is a seek in a primary key, a term's check reads the text. Left
        /// to their planners, both engines checked the text first (SQLite codes a correlated
        /// subquery after the other conditions; PostgreSQL joins it after the scan's filter):
        /// `night` with the tag `night`, newest first, checked each of 10,866 entries walked
        /// for `night`, 56 ms at a million entries on PostgreSQL, where the tag first took 10.
        case probedFirst
        /// Read in `row`, the row of another tag of the entry that the statement walks: its
        /// copy of all the entry's tags (`EntrySQLDialect.carriesTag`). Page 500 of `food` and
        /// `travel` sought `travel` in the primary key for each of 110,000 rows of `food`, 124
        /// ms on SQLite at a million entries; read in the rows, 18 ms.
        case carried(row: String)
    }

    /// Who may list, the diary, the dates, the tags and (`withTerms`) the terms, then `checks`,
    /// each a condition on entries `e`; without `ledTag`, which the statement's driving table
    /// finds. With `.probedFirst`, the terms and `checks` are asked only of an entry holding
    /// the tags (a `CASE`, which both engines evaluate in its order).
    static func conditions<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, _ search: TermSearch, tags: TagMatch, leavingOutTag ledTag: String? = nil, withTerms: Bool = true,
        checking checks: [SQLFragment] = [], _: Dialect.Type
    ) -> [SQLFragment] {
        let filter = query.filter
        var conditions = [EntryAccess.listable(by: query.viewerID, inDiaryOf: Dialect.inDiaryOf)]
        if let diaryID = query.diaryID { conditions.append("e.diary_id = \(diaryID)") }
        conditions += dateRange(of: filter)
        var probedTags: [String] = []
        for tag in filter.tags where tag != ledTag {
            switch tags {
            case .gathered: conditions.append("e.entry_id IN (SELECT entry_id FROM entry_tags WHERE tag = \(tag))")
            case .probed, .probedFirst: probedTags.append(tag)
            case .carried(let row): conditions.append(Dialect.carriesTag(tag, row: row))
            }
        }
        var lookUps: [SQLFragment] = []
        var termChecks: [SQLFragment] = []
        if search.matchesNothing {
            termChecks.append(SQLFragment(stringLiteral: Dialect.noRow))
        } else if withTerms {
            let terms = Dialect.termConditions(search, viewerID: query.viewerID)
            let leading = tags == .probedFirst ? min(Dialect.leadingLookUps(search), terms.count) : 0
            lookUps = Array(terms.prefix(leading))
            termChecks += terms.dropFirst(leading)
        }
        termChecks += checks
        guard tags == .probedFirst, !probedTags.isEmpty, !termChecks.isEmpty else {
            return conditions + lookUps + probedTags.map(probe(of:)) + termChecks
        }
        let tagsFirst: SQLFragment = """
            CASE WHEN \(probedTags.map(Dialect.holdsTag).joined(separator: " AND ")) \
            THEN \(termChecks.joined(separator: " AND ")) ELSE FALSE END
            """
        return conditions + lookUps + [tagsFirst]
    }

    /// Whether entry `e` holds `tag`, by a seek in the tags' primary key, which an engine may
    /// also turn into a join.
    public static func probe(of tag: String) -> SQLFragment {
        "EXISTS (SELECT 1 FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = \(tag))"
    }

    /// `conditions` and the index match of the indexed terms: what the count and the
    /// newest-first page filter entries by.
    static func filtered<Dialect: EntrySQLDialect>(
        _ conditions: [SQLFragment], _ search: TermSearch, viewerID: Int64?, _: Dialect.Type
    ) -> [SQLFragment] {
        guard let match = Dialect.indexMatch(search, viewerID: viewerID) else { return conditions }
        return conditions + [match]
    }

    /// The count of `query`'s entries (not its page or position) that sort at or above
    /// (`created`, `id`) newest first: the filter's count with the seek turned round.
    public static func countAtOrAbove<Dialect: EntrySQLDialect>(
        _ query: EntryQuery, created: Date, id: Int64, dialect: Dialect.Type, narrowings: [String: TermNarrowing] = [:]
    ) -> SQLFragment {
        let search = TermSearch(query.filter.terms, shortestIndexed: Dialect.shortestIndexedTerm, narrowings: narrowings)
        var filtered = Self.filtered(Self.conditions(query, search, tags: .gathered, Dialect.self), search, viewerID: query.viewerID, Dialect.self)
        filtered.append("(e.created, e.entry_id) >= (\(created), \(id))")
        return "SELECT count(*) FROM entries e WHERE \(filtered.joined(separator: " AND "))"
    }

    /// Where the page starts: after a number of results for a ranked search continued, at the
    /// top for a seek (its condition starts it), else at the requested page (one past any
    /// row when that page's offset overflows).
    static func offset(_ query: EntryQuery, ranked: Bool, walking: Bool = false) -> Int {
        switch query.position {
        case .offset(let after)? where ranked || walking: return after
        case .after? where !ranked: return 0
        default: return query.page.offset
        }
    }
}

extension EntryListSQL {
    /// One batch of an export, by id after `afterID` (nil: from the first), at most `limit`:
    /// all of `ownerID`'s entries, whatever their visibility, or every public entry when nil.
    ///
    /// The batch walks the primary key from `afterID`, and the owner is a filter on the way
    /// (`+d.user_id`: the unary plus keeps SQLite from starting at the owner's diaries). From
    /// the diaries, every batch read and sorted all of the owner's entries: 1.7 s a batch at a
    /// million entries. Walked by id, a whole export reads each entry once.
    public static func exportBatch<Dialect: EntrySQLDialect>(
        afterID: Int64?, limit: Int, ownerID: Int64?, dialect: Dialect.Type
    ) -> SQLFragment {
        let whose: SQLFragment = ownerID.map { "+d.user_id = \($0)" } ?? "e.visibility = 'public'"
        return "\(sql: Dialect.entryColumns) WHERE e.entry_id > \(afterID ?? 0) AND \(whose) ORDER BY e.entry_id LIMIT \(max(limit, 0))"
    }
}
