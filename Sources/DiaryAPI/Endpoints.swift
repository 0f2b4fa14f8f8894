import Foundation
import HTTPTypes

// MARK: - Entries

/// `GET /api/entries`: every entry, newest first, or those the filter finds.
public struct ListEntries: FilteredEndpoint {
    public typealias Response = EntryPage
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/entries"

    public var page: PageRequest
    public var filter: EntryFilter

    public init(page: PageRequest = PageRequest(), filter: EntryFilter = EntryFilter()) {
        self.page = page
        self.filter = filter
    }

    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {
        filter = try request.entryFilter()
        page = try request.pageRequest()
    }

    public var query: [URLQueryItem] { filter.queryItems + page.queryItems }
}

/// `GET /api/diaries/{diary_id}/entries`: one diary's entries, newest first.
public struct ListDiaryEntries: FilteredEndpoint {
    public typealias Response = EntryPage
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/diaries/{diary_id}/entries"

    public var diaryID: Int64
    public var page: PageRequest
    public var filter: EntryFilter

    public init(diaryID: Int64, page: PageRequest = PageRequest(), filter: EntryFilter = EntryFilter()) {
        self.diaryID = diaryID
        self.page = page
        self.filter = filter
    }

    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {
        diaryID = try request.id("diary_id")
        filter = try request.entryFilter()
        page = try request.pageRequest()
    }

    public var pathParameters: [String: String] { ["diary_id": String(diaryID)] }
    public var query: [URLQueryItem] { filter.queryItems + page.queryItems }
}

/// `GET /api/entries/{entry_id}`.
public struct GetEntry: APIEndpoint {
    public typealias Response = Entry
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/entries/{entry_id}"

    public var entryID: Int64

    public init(entryID: Int64) { self.entryID = entryID }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { entryID = try request.id("entry_id") }
    public var pathParameters: [String: String] { ["entry_id": String(entryID)] }
}

/// `POST /api/entries`: 201 with `Location` and the new entry. `?visibility=` sets the
/// visibility of a body that names none: the way a plain-text or Markdown post sets it.
public struct CreateEntry: APIEndpoint {
    public typealias Response = Entry
    public static let method = HTTPRequest.Method.post
    public static let path: PathTemplate = "/api/entries"
    public static let access = Access.token
    public static let successStatus = 201

    public var body: NewEntry?

    public init(_ newEntry: NewEntry) { body = newEntry }

    public init(_ request: EndpointRequest<NewEntry>) throws(ParameterError) {
        body = request.body
        if let text = try request.queryValue("visibility") {
            guard let visibility = Visibility(rawValue: text) else {
                throw ParameterError(name: "visibility", message: "must be \(Visibility.choices), not '\(text.prefix(40))'")
            }
            if body?.visibility == nil { body?.visibility = .known(visibility) }
        }
    }
}

/// `PUT /api/entries/{entry_id}`: replaces title and body; owner only.
public struct ReplaceEntry: APIEndpoint {
    public typealias Response = Entry
    public static let method = HTTPRequest.Method.put
    public static let path: PathTemplate = "/api/entries/{entry_id}"
    public static let access = Access.token

    public var entryID: Int64
    public var body: EntryReplacement?

    public init(entryID: Int64, _ replacement: EntryReplacement) {
        self.entryID = entryID
        body = replacement
    }

    public init(_ request: EndpointRequest<EntryReplacement>) throws(ParameterError) {
        entryID = try request.id("entry_id")
        body = request.body
    }

    public var pathParameters: [String: String] { ["entry_id": String(entryID)] }
}

/// `PATCH /api/entries/{entry_id}`: changes the fields sent; owner only.
public struct UpdateEntry: APIEndpoint {
    public typealias Response = Entry
    public static let method = HTTPRequest.Method.patch
    public static let path: PathTemplate = "/api/entries/{entry_id}"
    public static let access = Access.token

    public var entryID: Int64
    public var body: EntryPatch?

    public init(entryID: Int64, _ patch: EntryPatch) {
        self.entryID = entryID
        body = patch
    }

    public init(_ request: EndpointRequest<EntryPatch>) throws(ParameterError) {
        entryID = try request.id("entry_id")
        body = request.body
    }

    public var pathParameters: [String: String] { ["entry_id": String(entryID)] }
}

/// `DELETE /api/entries/{entry_id}`: 204; owner only.
public struct DeleteEntry: APIEndpoint {
    public typealias Response = NoContent
    public static let method = HTTPRequest.Method.delete
    public static let path: PathTemplate = "/api/entries/{entry_id}"
    public static let access = Access.token
    public static let successStatus = 204

    public var entryID: Int64

    public init(entryID: Int64) { self.entryID = entryID }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { entryID = try request.id("entry_id") }
    public var pathParameters: [String: String] { ["entry_id": String(entryID)] }
}

// MARK: - Diaries

/// `GET /api/diaries`: every diary.
public struct ListDiaries: APIEndpoint {
    public typealias Response = DiaryList
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/diaries"

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

/// `GET /api/diaries/{diary_id}`.
public struct GetDiary: APIEndpoint {
    public typealias Response = Diary
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/diaries/{diary_id}"

    public var diaryID: Int64

    public init(diaryID: Int64) { self.diaryID = diaryID }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { diaryID = try request.id("diary_id") }
    public var pathParameters: [String: String] { ["diary_id": String(diaryID)] }
}

/// `PATCH /api/diaries/{diary_id}`: changes the title or the default visibility; owner only.
public struct UpdateDiary: APIEndpoint {
    public typealias Response = Diary
    public static let method = HTTPRequest.Method.patch
    public static let path: PathTemplate = "/api/diaries/{diary_id}"
    public static let access = Access.token

    public var diaryID: Int64
    public var body: DiaryPatch?

    public init(diaryID: Int64, _ patch: DiaryPatch) {
        self.diaryID = diaryID
        body = patch
    }

    public init(_ request: EndpointRequest<DiaryPatch>) throws(ParameterError) {
        diaryID = try request.id("diary_id")
        body = request.body
    }

    public var pathParameters: [String: String] { ["diary_id": String(diaryID)] }
}

/// `POST /api/diaries`: 201 with `Location` and the new diary.
public struct CreateDiary: APIEndpoint {
    public typealias Response = Diary
    public static let method = HTTPRequest.Method.post
    public static let path: PathTemplate = "/api/diaries"
    public static let access = Access.token
    public static let successStatus = 201

    public var body: NewDiary?

    public init(_ newDiary: NewDiary) { body = newDiary }
    public init(_ request: EndpointRequest<NewDiary>) throws(ParameterError) { body = request.body }
}

// MARK: - Users and service

/// `GET /api/me`: the user the token belongs to.
public struct GetCurrentUser: APIEndpoint {
    public typealias Response = User
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/me"
    public static let access = Access.token

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

/// `GET /api/health`.
public struct GetHealth: APIEndpoint {
    public typealias Response = HealthStatus
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/health"

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

/// `GET /api/ready`: whether the database can be written now, for load balancers: 200 with
/// `{"status":"ready"}`, or 503 problem+json when not (a read-only file or folder, the write
/// lock held too long, an unreachable or read-only PostgreSQL server). `/api/health` only says
/// the process answers; this one says a post would be taken. Never kept by the response cache.
public struct GetReadiness: APIEndpoint {
    public typealias Response = HealthStatus
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/ready"

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

// MARK: - Tags, export and import

/// `GET /api/tags`: every tag in use, with its number of entries, by name.
public struct ListTags: APIEndpoint {
    public typealias Response = TagList
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/tags"

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

/// The formats `GET /api/export` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// One entry a line (`application/x-ndjson`).
    case ndjson
    /// One JSON array of entries.
    case json

    public var mediaType: String { self == .ndjson ? MediaTypes.ndjson : MediaTypes.json }
}

/// `GET /api/export?format=ndjson|json`: every entry, oldest id first, streamed. The response
/// is `[Entry]` (json) or one `Entry` a line (ndjson); the client reads it as bytes.
public struct ExportEntries: APIEndpoint {
    public typealias Response = [Entry]
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/export"

    public var format: ExportFormat

    public init(format: ExportFormat = .ndjson) { self.format = format }

    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {
        format = .ndjson
        if let text = try request.queryValue("format") {
            guard let format = ExportFormat(rawValue: text) else {
                throw ParameterError(name: "format", message: "must be ndjson or json, not '\(text.prefix(40))'")
            }
            self.format = format
        }
    }

    public var query: [URLQueryItem] { [URLQueryItem(name: "format", value: format.rawValue)] }
}

/// `POST /api/import`: writes exported entries of the caller, keeping their ids and dates;
/// an entry whose id exists is skipped.
public struct ImportEntries: APIEndpoint {
    public typealias Response = ImportResult
    public typealias Body = ImportBatch
    public static let method = HTTPRequest.Method.post
    public static let path: PathTemplate = "/api/import"
    public static let access = Access.token

    public var body: ImportBatch?

    public init(_ batch: ImportBatch) { body = batch }
    public init(_ request: EndpointRequest<ImportBatch>) throws(ParameterError) { body = request.body }
}

// MARK: - Change feed (the offline replica)

/// `GET /api/changes?since=CURSOR&limit=N`: what changed since the cursor (no `since`: from the
/// beginning), oldest first, streamed; a cursor older than the tombstones kept is 410.
public struct ListChanges: APIEndpoint {
    public typealias Response = ChangePage
    public static let method = HTTPRequest.Method.get
    public static let path: PathTemplate = "/api/changes"

    public var since: ChangeCursor?
    public var limit: Int

    public init(since: ChangeCursor? = nil, limit: Int = ChangePage.defaultLimit) {
        self.since = since
        self.limit = limit
    }

    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {
        if let text = try request.queryValue("since") {
            guard let cursor = ChangeCursor(text) else {
                throw ParameterError(name: "since", message: "is not a cursor of this feed: '\(text.prefix(40))'")
            }
            since = cursor
        }
        limit = ChangePage.defaultLimit
        if let text = try request.queryValue("limit") {
            limit = try EndpointRequest<NoBody>.positiveInt(text, name: "limit")
            guard limit <= ChangePage.maxLimit else {
                throw ParameterError(name: "limit", message: "must be at most \(ChangePage.maxLimit)")
            }
        }
    }

    public var query: [URLQueryItem] {
        (since.map { [URLQueryItem(name: "since", value: $0.description)] } ?? []) + [URLQueryItem(name: "limit", value: String(limit))]
    }
}

// MARK: - Catalogue

public enum APIEndpoints {
    /// Every endpoint of the API, in the order the documentation lists them.
    public static let all: [any APIEndpoint.Type] = [
        ListEntries.self, GetEntry.self, CreateEntry.self, ReplaceEntry.self, UpdateEntry.self, DeleteEntry.self,
        ListDiaries.self, GetDiary.self, ListDiaryEntries.self, CreateDiary.self, UpdateDiary.self,
        GetCurrentUser.self, GetHealth.self, GetReadiness.self,
        ListTags.self, ExportEntries.self, ImportEntries.self,
        UploadMedia.self, ListMedia.self, GetMedia.self, DeleteMedia.self,
        CreateToken.self, ListTokens.self, RevokeToken.self,
        ListChanges.self,
    ]
}
