import Foundation

// MARK: - Entries

/// `GET /api/entries`: every entry, newest first.
public struct ListEntries: PagedEndpoint {
    public typealias Response = EntryPage
    public static let method = HTTPMethod.GET
    public static let path: PathTemplate = "/api/entries"

    public var page: PageRequest

    public init(page: PageRequest = PageRequest()) { self.page = page }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { page = try request.pageRequest() }
    public var query: [URLQueryItem] { page.queryItems }
}

/// `GET /api/diaries/{diary_id}/entries`: one diary's entries, newest first.
public struct ListDiaryEntries: PagedEndpoint {
    public typealias Response = EntryPage
    public static let method = HTTPMethod.GET
    public static let path: PathTemplate = "/api/diaries/{diary_id}/entries"

    public var diaryID: Int64
    public var page: PageRequest

    public init(diaryID: Int64, page: PageRequest = PageRequest()) {
        self.diaryID = diaryID
        self.page = page
    }

    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {
        diaryID = try request.id("diary_id")
        page = try request.pageRequest()
    }

    public var pathParameters: [String: String] { ["diary_id": String(diaryID)] }
    public var query: [URLQueryItem] { page.queryItems }
}

/// `GET /api/entries/{entry_id}`.
public struct GetEntry: APIEndpoint {
    public typealias Response = Entry
    public static let method = HTTPMethod.GET
    public static let path: PathTemplate = "/api/entries/{entry_id}"

    public var entryID: Int64

    public init(entryID: Int64) { self.entryID = entryID }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { entryID = try request.id("entry_id") }
    public var pathParameters: [String: String] { ["entry_id": String(entryID)] }
}

/// `POST /api/entries`: 201 with `Location` and the new entry.
public struct CreateEntry: APIEndpoint {
    public typealias Response = Entry
    public static let method = HTTPMethod.POST
    public static let path: PathTemplate = "/api/entries"
    public static let access = Access.token
    public static let successStatus = 201

    public var body: NewEntry?

    public init(_ newEntry: NewEntry) { body = newEntry }
    public init(_ request: EndpointRequest<NewEntry>) throws(ParameterError) { body = request.body }
}

/// `PUT /api/entries/{entry_id}`: replaces title and body; owner only.
public struct ReplaceEntry: APIEndpoint {
    public typealias Response = Entry
    public static let method = HTTPMethod.PUT
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
    public static let method = HTTPMethod.PATCH
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
    public static let method = HTTPMethod.DELETE
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
    public static let method = HTTPMethod.GET
    public static let path: PathTemplate = "/api/diaries"

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

/// `GET /api/diaries/{diary_id}`.
public struct GetDiary: APIEndpoint {
    public typealias Response = Diary
    public static let method = HTTPMethod.GET
    public static let path: PathTemplate = "/api/diaries/{diary_id}"

    public var diaryID: Int64

    public init(diaryID: Int64) { self.diaryID = diaryID }
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) { diaryID = try request.id("diary_id") }
    public var pathParameters: [String: String] { ["diary_id": String(diaryID)] }
}

/// `POST /api/diaries`: 201 with `Location` and the new diary.
public struct CreateDiary: APIEndpoint {
    public typealias Response = Diary
    public static let method = HTTPMethod.POST
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
    public static let method = HTTPMethod.GET
    public static let path: PathTemplate = "/api/me"
    public static let access = Access.token

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

/// `GET /api/health`.
public struct GetHealth: APIEndpoint {
    public typealias Response = HealthStatus
    public static let method = HTTPMethod.GET
    public static let path: PathTemplate = "/api/health"

    public init() {}
    public init(_ request: EndpointRequest<NoBody>) throws(ParameterError) {}
}

// MARK: - Catalogue

public enum APIEndpoints {
    /// Every endpoint of the API, in the order the documentation lists them.
    public static let all: [any APIEndpoint.Type] = [
        ListEntries.self, GetEntry.self, CreateEntry.self, ReplaceEntry.self, UpdateEntry.self, DeleteEntry.self,
        ListDiaries.self, GetDiary.self, ListDiaryEntries.self, CreateDiary.self,
        GetCurrentUser.self, GetHealth.self,
    ]
}
