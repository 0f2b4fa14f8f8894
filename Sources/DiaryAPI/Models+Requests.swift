import Foundation

// MARK: - Request bodies

/// The body of `POST /api/entries`.
public struct NewEntry: Codable, Sendable, Equatable {
    public var title: String
    public var body: String
    /// The diary to write in; nil means the caller's first diary (created when they have none).
    public var diaryID: Int64?

    public init(title: String, body: String, diaryID: Int64? = nil) {
        self.title = title
        self.body = body
        self.diaryID = diaryID
    }

    enum CodingKeys: String, CodingKey {
        case title, body, diaryID = "diary_id"
    }
}

/// The body of `PUT /api/entries/{entry_id}`: both fields replace the stored ones.
public struct EntryReplacement: Codable, Sendable, Equatable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}

/// The body of `PATCH /api/entries/{entry_id}`: only the fields present change.
public struct EntryPatch: Codable, Sendable, Equatable {
    public var title: String?
    public var body: String?

    public init(title: String? = nil, body: String? = nil) {
        self.title = title
        self.body = body
    }
}

/// The body of `POST /api/diaries`.
public struct NewDiary: Codable, Sendable, Equatable {
    public var title: String

    public init(title: String) {
        self.title = title
    }
}
