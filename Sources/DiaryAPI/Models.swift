import Foundation

// MARK: - Resources

/// A diary entry as the API shows it.
public struct Entry: Codable, Sendable, Equatable {
    public var id: Int64
    public var diaryID: Int64
    /// The name of the user who owns the entry's diary.
    public var author: String
    public var title: String
    public var body: String
    public var created: Date
    public var updated: Date
    /// Normalised tags (see `TagRules`), sorted; always encoded, possibly empty.
    public var tags: [String]
    /// Who may read it; always encoded. For a draft, the visibility it takes once published.
    public var visibility: Visibility
    /// A draft is its owner's alone, as a private entry is, until published (`EntryDraft`).
    /// Encoded only when true: `"draft": true` appears in no answer but its owner's.
    public var draft: Bool
    /// A scheduled entry (its `created` was ahead of the clock when written) is its owner's
    /// alone, as a draft is, until its `created`: then it is published as it is, with no write.
    /// Encoded only when true: `"scheduled": true` appears in no answer but its owner's.
    public var scheduled: Bool
    /// In search results only: about 80 characters around the first match as HTML text (see
    /// `SnippetMarkup`), matches wrapped in `<mark>`…`</mark>`; never encoded when nil.
    public var snippet: String?

    public init(
        id: Int64, diaryID: Int64, author: String, title: String, body: String, created: Date, updated: Date,
        tags: [String] = [], visibility: Visibility = .public, draft: Bool = false, scheduled: Bool = false,
        snippet: String? = nil
    ) {
        self.id = id
        self.diaryID = diaryID
        self.author = author
        self.title = title
        self.body = body
        self.created = created
        self.updated = updated
        self.tags = tags
        self.visibility = visibility
        self.draft = draft
        self.scheduled = scheduled
        self.snippet = snippet
    }

    /// A draft or a scheduled entry: stored private, whatever visibility it shows its owner.
    public var isWaiting: Bool { draft || scheduled }

    enum CodingKeys: String, CodingKey {
        case id = "entry_id", diaryID = "diary_id", author, title, body, created, updated, tags, visibility, draft, scheduled, snippet
    }

    /// Written by hand so that an import file without `visibility` still reads (as public here;
    /// `ImportedEntry` tells the store it was absent, and the diary's default applies).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int64.self, forKey: .id)
        diaryID = try container.decode(Int64.self, forKey: .diaryID)
        author = try container.decode(String.self, forKey: .author)
        title = try container.decode(String.self, forKey: .title)
        body = try container.decode(String.self, forKey: .body)
        created = try container.decode(Date.self, forKey: .created)
        updated = try container.decode(Date.self, forKey: .updated)
        tags = try container.decode([String].self, forKey: .tags)
        visibility = try container.decodeIfPresent(VisibilityField.self, forKey: .visibility)?.value ?? .public
        draft = try container.decodeIfPresent(Bool.self, forKey: .draft) ?? false
        scheduled = try container.decodeIfPresent(Bool.self, forKey: .scheduled) ?? false
        snippet = try container.decodeIfPresent(String.self, forKey: .snippet)
    }

    /// Written by hand so that `snippet` is left out, not `null`, outside search results, and
    /// `draft` outside drafts, `scheduled` outside scheduled entries.
    public func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, includingVisibility: true)
    }

    /// An import file may leave `visibility` out (see `ImportedEntry`).
    func encode(to encoder: any Encoder, includingVisibility: Bool) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(diaryID, forKey: .diaryID)
        try container.encode(author, forKey: .author)
        try container.encode(title, forKey: .title)
        try container.encode(body, forKey: .body)
        try container.encode(created, forKey: .created)
        try container.encode(updated, forKey: .updated)
        try container.encode(tags, forKey: .tags)
        if includingVisibility { try container.encode(visibility, forKey: .visibility) }
        if draft { try container.encode(true, forKey: .draft) }
        if scheduled { try container.encode(true, forKey: .scheduled) }
        try container.encodeIfPresent(snippet, forKey: .snippet)
    }
}

/// One page of entries, newest first, with the numbers a client needs to move between pages.
public struct EntryPage: Codable, Sendable, Equatable {
    public var entries: [Entry]
    public var page: Int
    public var perPage: Int
    public var total: Int
    public var nextPage: Int?
    public var prevPage: Int?
    /// Continues the list after this page's last entry (`?cursor=`); nil on the last page.
    public var nextCursor: String?

    /// True when a search or a filter (tags, dates) found more entries than it counts
    /// (`EntryPage.countedMatches`): `total` is then that bound, and more entries match.
    /// Encoded only when true.
    public var totalIsEstimate: Bool

    /// The number of matches a search or a filter counts at most: past it, `total` is this
    /// bound and `totalIsEstimate` is true, as GitHub shows "1,000+ results". Counting every
    /// match of a common word would read every entry holding it (2.7 s at 1,000,000 entries),
    /// and of a tag on a third of them, 3.1 s. Each counted match is looked up and checked:
    /// at 10,000 the count alone took 70–90 ms on PostgreSQL (its `LIKE` on each entry's text)
    /// and 40–120 ms on SQLite for a term with a tag, past the 50 ms every request must keep.
    public static let countedMatches = 1_000

    /// - parameter moreFollow: with an estimated total, whether entries follow this page (a
    ///   store reads one row past it); an exact total says so by itself.
    public init(
        entries: [Entry], page: Int, perPage: Int, total: Int, nextCursor: String? = nil,
        totalIsEstimate: Bool = false, moreFollow: Bool = false
    ) {
        self.entries = entries
        self.page = page
        self.perPage = perPage
        self.total = total
        self.totalIsEstimate = totalIsEstimate
        (nextPage, prevPage) = PageRequest(page: page, perPage: perPage).neighbours(
            total: total, moreFollow: totalIsEstimate ? moreFollow : nil
        )
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case entries, page, perPage = "per_page", total, totalIsEstimate = "total_is_estimate", nextPage = "next_page",
            prevPage = "prev_page", nextCursor = "next_cursor"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entries = try container.decode([Entry].self, forKey: .entries)
        page = try container.decode(Int.self, forKey: .page)
        perPage = try container.decode(Int.self, forKey: .perPage)
        total = try container.decode(Int.self, forKey: .total)
        totalIsEstimate = try container.decodeIfPresent(Bool.self, forKey: .totalIsEstimate) ?? false
        nextPage = try container.decodeIfPresent(Int.self, forKey: .nextPage)
        prevPage = try container.decodeIfPresent(Int.self, forKey: .prevPage)
        nextCursor = try container.decodeIfPresent(String.self, forKey: .nextCursor)
    }

    /// Written by hand so that an absent neighbour page is `null`, not a missing key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(page, forKey: .page)
        try container.encode(perPage, forKey: .perPage)
        try container.encode(total, forKey: .total)
        if totalIsEstimate { try container.encode(true, forKey: .totalIsEstimate) }
        try container.encode(nextPage, forKey: .nextPage)
        try container.encode(prevPage, forKey: .prevPage)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}

extension EntryPage {
    /// The total as people read it: "57", or "1,000+" when it is an estimate (more match),
    /// as GitHub writes "1,000+ results". Pages and the CLI both say it so.
    public var totalText: String {
        Self.totalText(total, isEstimate: totalIsEstimate)
    }

    public static func totalText(_ total: Int, isEstimate: Bool) -> String {
        isEstimate ? grouped(total) + "+" : String(total)
    }

    /// "10000" as "10,000": digits in threes from the right.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number.magnitude))
        var text = number < 0 ? "-" : ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }
}

/// `GET /api/tags`: every tag in use, with how many entries carry it.
public struct TagList: Codable, Sendable, Equatable {
    public var tags: [TagCount]

    public init(tags: [TagCount]) {
        self.tags = tags
    }
}

public struct TagCount: Codable, Sendable, Equatable {
    public var name: String
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}

/// The answer of `POST /api/import`: entries written, and entries skipped because their id exists.
public struct ImportResult: Codable, Sendable, Equatable {
    public var created: Int
    public var skipped: Int

    public init(created: Int = 0, skipped: Int = 0) {
        self.created = created
        self.skipped = skipped
    }
}

/// A diary: a user's collection of entries.
public struct Diary: Codable, Sendable, Equatable {
    public var id: Int64
    /// The name of the user who owns the diary.
    public var owner: String
    public var title: String
    /// The visibility of an entry written without one.
    public var defaultVisibility: Visibility
    /// Its entries the reader may list: public ones, and all of them for its owner.
    public var entryCount: Int
    public var created: Date
    /// When it, or an entry the reader may list, last changed.
    public var updated: Date

    public init(
        id: Int64, owner: String, title: String, defaultVisibility: Visibility = .public, entryCount: Int, created: Date, updated: Date
    ) {
        self.id = id
        self.owner = owner
        self.title = title
        self.defaultVisibility = defaultVisibility
        self.entryCount = entryCount
        self.created = created
        self.updated = updated
    }

    enum CodingKeys: String, CodingKey {
        case id = "diary_id", owner, title, defaultVisibility = "default_visibility", entryCount = "entry_count", created, updated
    }
}

public struct DiaryList: Codable, Sendable, Equatable {
    public var diaries: [Diary]

    public init(diaries: [Diary]) {
        self.diaries = diaries
    }

    enum CodingKeys: String, CodingKey {
        case diaries
    }
}

/// The user a token belongs to.
public struct User: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String

    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case id = "user_id", name
    }
}

public struct HealthStatus: Codable, Sendable, Equatable {
    public var status: String

    public init(status: String) {
        self.status = status
    }
}

/// The response of an endpoint that answers 204 with no body.
public struct NoContent: Codable, Sendable, Equatable {
    public init() {}
}

/// The body of an endpoint that takes none.
public struct NoBody: Codable, Sendable, Equatable {
    public init() {}
}
