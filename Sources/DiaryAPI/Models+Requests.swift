import Foundation

// MARK: - Request bodies

/// The body of `POST /api/entries`.
public struct NewEntry: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    /// The diary to write in; nil means the caller's first diary (created when they have none).
    public var diaryID: Int64?
    /// Tags, normalised by `TagRules`; nil or absent means none.
    public var tags: [String]?
    /// Back-dates the entry (`updated` is still now); nil means now.
    public var created: Date?

    public init(title: String, body: String, diaryID: Int64? = nil, tags: [String]? = nil, created: Date? = nil) {
        self.title = title
        self.body = body
        self.diaryID = diaryID
        self.tags = tags
        self.created = created
    }

    enum CodingKeys: String, CodingKey {
        case title, body, diaryID = "diary_id", tags, created
    }
}

/// The body of `PUT /api/entries/{entry_id}`: both fields replace the stored ones.
public struct EntryReplacement: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    /// Replaces the tags when present; absent leaves them unchanged.
    public var tags: [String]?

    public init(title: String, body: String, tags: [String]? = nil) {
        self.title = title
        self.body = body
        self.tags = tags
    }
}

/// The body of `PATCH /api/entries/{entry_id}`: only the fields present change.
public struct EntryPatch: Codable, Sendable, Equatable {
    public var title: String?
    public var body: String?
    public var tags: [String]?

    public init(title: String? = nil, body: String? = nil, tags: [String]? = nil) {
        self.title = title
        self.body = body
        self.tags = tags
    }
}

/// A body that can also be sent as NDJSON (`application/x-ndjson`): one array element a line.
public protocol LineDelimitedBody {}

/// The body of `POST /api/import`: entries in the export format, as a JSON array or as
/// NDJSON (`application/x-ndjson`, one entry a line).
public struct ImportBatch: Codable, Sendable, Equatable, LineDelimitedBody {
    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    public init(from decoder: any Decoder) throws {
        entries = try decoder.singleValueContainer().decode([Entry].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
}

/// The body of `POST /api/diaries`.
public struct NewDiary: Codable, Sendable, Equatable {
    public var title: String

    public init(title: String) {
        self.title = title
    }
}
