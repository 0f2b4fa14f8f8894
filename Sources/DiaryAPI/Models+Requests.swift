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
    /// Who may read it; nil means the diary's `default_visibility`. For a draft, once published.
    public var visibility: VisibilityField?
    /// True: a draft, its owner's alone until published; nil or false: published now.
    public var draft: Bool?

    public init(
        title: String, body: String, diaryID: Int64? = nil, tags: [String]? = nil, created: Date? = nil, visibility: Visibility? = nil,
        draft: Bool? = nil
    ) {
        self.title = title
        self.body = body
        self.diaryID = diaryID
        self.tags = tags
        self.created = created
        self.visibility = visibility.map(VisibilityField.init)
        self.draft = draft
    }

    enum CodingKeys: String, CodingKey {
        case title, body, diaryID = "diary_id", tags, created, visibility, draft
    }
}

/// The body of `PUT /api/entries/{entry_id}`: title and body replace the stored ones; tags,
/// visibility and created change when present.
public struct EntryReplacement: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    /// Replaces the tags when present; absent leaves them unchanged.
    public var tags: [String]?
    public var visibility: VisibilityField?
    /// Moves the entry's date; absent keeps it (publishing a private entry keeps its date), except
    /// that publishing a draft dates it now.
    public var created: Date?
    /// False publishes a draft; true makes the entry a draft; absent leaves it as it is.
    public var draft: Bool?

    public init(title: String, body: String, tags: [String]? = nil, visibility: Visibility? = nil, created: Date? = nil, draft: Bool? = nil) {
        self.title = title
        self.body = body
        self.tags = tags
        self.visibility = visibility.map(VisibilityField.init)
        self.created = created
        self.draft = draft
    }
}

/// The body of `PATCH /api/entries/{entry_id}`: only the fields present change.
public struct EntryPatch: Codable, Sendable, Equatable {
    public var title: String?
    public var body: String?
    public var tags: [String]?
    public var visibility: VisibilityField?
    public var created: Date?
    /// `{"draft": false}` publishes a draft (dated now unless `created` comes with it).
    public var draft: Bool?

    public init(
        title: String? = nil, body: String? = nil, tags: [String]? = nil, visibility: Visibility? = nil, created: Date? = nil, draft: Bool? = nil
    ) {
        self.title = title
        self.body = body
        self.tags = tags
        self.visibility = visibility.map(VisibilityField.init)
        self.created = created
        self.draft = draft
    }
}

/// A body that can also be sent as NDJSON (`application/x-ndjson`): one array element a line.
public protocol LineDelimitedBody {}

/// The body of `POST /api/import`: entries in the export format, as a JSON array or as
/// NDJSON (`application/x-ndjson`, one entry a line).
public struct ImportBatch: Codable, Sendable, Equatable, LineDelimitedBody {
    public var entries: [ImportedEntry]

    public init(entries: [ImportedEntry]) {
        self.entries = entries
    }

    public init(from decoder: any Decoder) throws {
        entries = try decoder.singleValueContainer().decode([ImportedEntry].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
}

/// One entry of an import file: an exported entry whose `visibility` may be absent (files
/// written before entries had one), in which case the diary's default applies.
public struct ImportedEntry: Codable, Sendable, Equatable {
    public var entry: Entry
    /// As the file names it; nil where it names none.
    public var visibility: VisibilityField?

    public init(_ entry: Entry, visibility: Visibility?) {
        self.entry = entry
        self.visibility = visibility.map(VisibilityField.init)
    }

    public init(from decoder: any Decoder) throws {
        entry = try Entry(from: decoder)
        visibility = try decoder.container(keyedBy: Entry.CodingKeys.self).decodeIfPresent(VisibilityField.self, forKey: .visibility)
    }

    public func encode(to encoder: any Encoder) throws {
        var entry = entry
        if let known = visibility?.value { entry.visibility = known }
        try entry.encode(to: encoder, includingVisibility: visibility != nil)
    }
}

/// The body of `POST /api/diaries`.
public struct NewDiary: Codable, Sendable, Equatable {
    public var title: String
    /// The visibility of entries written without one; absent means public.
    public var defaultVisibility: VisibilityField?

    public init(title: String, defaultVisibility: Visibility? = nil) {
        self.title = title
        self.defaultVisibility = defaultVisibility.map(VisibilityField.init)
    }

    enum CodingKeys: String, CodingKey {
        case title, defaultVisibility = "default_visibility"
    }
}

/// The body of `PATCH /api/diaries/{diary_id}`: only the fields present change.
public struct DiaryPatch: Codable, Sendable, Equatable {
    public var title: String?
    public var defaultVisibility: VisibilityField?

    public init(title: String? = nil, defaultVisibility: Visibility? = nil) {
        self.title = title
        self.defaultVisibility = defaultVisibility.map(VisibilityField.init)
    }

    enum CodingKeys: String, CodingKey {
        case title, defaultVisibility = "default_visibility"
    }
}
