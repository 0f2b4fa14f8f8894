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

    public init(id: Int64, diaryID: Int64, author: String, title: String, body: String, created: Date, updated: Date) {
        self.id = id
        self.diaryID = diaryID
        self.author = author
        self.title = title
        self.body = body
        self.created = created
        self.updated = updated
    }

    enum CodingKeys: String, CodingKey {
        case id = "entry_id", diaryID = "diary_id", author, title, body, created, updated
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

    public init(entries: [Entry], page: Int, perPage: Int, total: Int) {
        self.entries = entries
        self.page = page
        self.perPage = perPage
        self.total = total
        let (seen, overflow) = page.multipliedReportingOverflow(by: perPage)
        self.nextPage = !overflow && seen < total ? page + 1 : nil
        self.prevPage = page > 1 ? page - 1 : nil
    }

    enum CodingKeys: String, CodingKey {
        case entries, page, perPage = "per_page", total, nextPage = "next_page", prevPage = "prev_page"
    }

    /// Written by hand so that an absent neighbour page is `null`, not a missing key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(page, forKey: .page)
        try container.encode(perPage, forKey: .perPage)
        try container.encode(total, forKey: .total)
        try container.encode(nextPage, forKey: .nextPage)
        try container.encode(prevPage, forKey: .prevPage)
    }
}

/// A diary: a user's collection of entries.
public struct Diary: Codable, Sendable, Equatable {
    public var id: Int64
    /// The name of the user who owns the diary.
    public var owner: String
    public var title: String
    public var entryCount: Int
    public var created: Date
    public var updated: Date

    public init(id: Int64, owner: String, title: String, entryCount: Int, created: Date, updated: Date) {
        self.id = id
        self.owner = owner
        self.title = title
        self.entryCount = entryCount
        self.created = created
        self.updated = updated
    }

    enum CodingKeys: String, CodingKey {
        case id = "diary_id", owner, title, entryCount = "entry_count", created, updated
    }
}

public struct DiaryList: Codable, Sendable, Equatable {
    public var diaries: [Diary]

    public init(diaries: [Diary]) {
        self.diaries = diaries
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
