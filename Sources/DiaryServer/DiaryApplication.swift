import DiaryAPI
import DiaryStore
import HTTPCore

/// The diary service as an `HTTPResponder`: every endpoint of the contract routed to its
/// handler on a store. Knows nothing of sockets; the transport calls it on its threads.
public struct DiaryApplication: HTTPResponder {
    public let router: Router
    let store: any DiaryStore
    /// Called with every 5xx answer's cause; never handed a token or a request body.
    let log: @Sendable (String) -> Void

    public init(store: any DiaryStore, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.log = log
        var router = Router()
        Self.addRoutes(to: &router, store: store, log: log)
        self.router = router
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        router.respond(to: request)
    }

    public func respond(to error: HTTPRequestError, request: HTTPRequest) -> HTTPResponse {
        let title = error.status == 413 ? "Content Too Large" : "Bad Request"
        return HTTPResponse(
            problem: Problem(title: title, status: error.status, detail: error.reason),
            headers: ["Connection": "close"]
        )
    }
}

// MARK: - Routes

extension DiaryApplication {
    private static func addRoutes(to router: inout Router, store: any DiaryStore, log: @escaping @Sendable (String) -> Void) {
        let handlers = Handlers(store: store, log: log)
        let auth = Authenticator(store: store)
        router.add(ListEntries.self, authenticator: auth) { endpoint, _ throws(Problem) in
            try handlers.run { () throws(StoreError) in try store.entries(diaryID: nil, page: endpoint.page) }
        }
        router.add(ListDiaryEntries.self, authenticator: auth) { endpoint, _ throws(Problem) in
            try handlers.run { () throws(StoreError) in try store.entries(diaryID: endpoint.diaryID, page: endpoint.page) }
        }
        router.add(GetEntry.self, authenticator: auth) { endpoint, _ throws(Problem) in
            try handlers.found("entry \(endpoint.entryID)") { () throws(StoreError) in try store.entry(id: endpoint.entryID) }
        }
        router.add(CreateEntry.self, authenticator: auth, handler: handlers.createEntry)
        router.add(ReplaceEntry.self, authenticator: auth) { endpoint, caller throws(Problem) in
            let user = try caller.authenticatedUser()
            guard let body = endpoint.body else { throw .badRequest("The request needs a body.") }
            return try handlers.run { () throws(StoreError) in
                try store.updateEntry(id: endpoint.entryID, userID: user.id, title: body.title, body: body.body)
            }
        }
        router.add(UpdateEntry.self, authenticator: auth) { endpoint, caller throws(Problem) in
            let user = try caller.authenticatedUser()
            guard let body = endpoint.body else { throw .badRequest("The request needs a body.") }
            return try handlers.run { () throws(StoreError) in
                try store.updateEntry(id: endpoint.entryID, userID: user.id, title: body.title, body: body.body)
            }
        }
        router.add(DeleteEntry.self, authenticator: auth) { endpoint, caller throws(Problem) in
            let user = try caller.authenticatedUser()
            try handlers.run { () throws(StoreError) in try store.deleteEntry(id: endpoint.entryID, userID: user.id) }
            return NoContent()
        }
        router.add(ListDiaries.self, authenticator: auth) { _, _ throws(Problem) in
            try handlers.run { () throws(StoreError) in DiaryList(diaries: try store.diaries()) }
        }
        router.add(GetDiary.self, authenticator: auth) { endpoint, _ throws(Problem) in
            try handlers.found("diary \(endpoint.diaryID)") { () throws(StoreError) in try store.diary(id: endpoint.diaryID) }
        }
        router.add(CreateDiary.self, authenticator: auth) { endpoint, caller throws(Problem) in
            let user = try caller.authenticatedUser()
            guard let body = endpoint.body else { throw .badRequest("The request needs a body.") }
            return try handlers.run { () throws(StoreError) in try store.createDiary(ownerID: user.id, title: body.title) }
        }
        router.add(GetCurrentUser.self, authenticator: auth) { _, caller throws(Problem) in
            try caller.authenticatedUser()
        }
        router.add(GetHealth.self, authenticator: auth) { _, _ throws(Problem) in
            HealthStatus(status: "ok")
        }
    }
}

// MARK: - Handlers

/// The work behind the routes, and the one place store failures become problems.
struct Handlers: Sendable {
    let store: any DiaryStore
    let log: @Sendable (String) -> Void

    /// Runs a store call; a failure becomes its problem, and an unavailable store is logged.
    func run<T>(_ body: () throws(StoreError) -> T) throws(Problem) -> T {
        do {
            return try body()
        } catch {
            if error.kind == .unavailable { log("store unavailable: \(error)") }
            throw Problem(error)
        }
    }

    /// Runs a lookup; nil becomes 404 naming `subject`.
    func found<T>(_ subject: String, _ lookup: () throws(StoreError) -> T?) throws(Problem) -> T {
        guard let value = try run(lookup) else { throw .notFound("\(subject) does not exist") }
        return value
    }

    /// An unknown `diary_id` in the body is a field the client got wrong: 422, not 404.
    func createEntry(_ endpoint: CreateEntry, _ caller: Caller) throws(Problem) -> Entry {
        let user = try caller.authenticatedUser()
        guard let body = endpoint.body else { throw .badRequest("The request needs a body.") }
        do {
            return try store.createEntry(userID: user.id, diaryID: body.diaryID, title: body.title, body: body.body)
        } catch where error.kind == .notFound && body.diaryID != nil {
            throw .validation(ValidationFailure([FieldError(field: "diary_id", message: "\(error.subject) does not exist")]))
        } catch {
            if error.kind == .unavailable { log("store unavailable: \(error)") }
            throw Problem(error)
        }
    }
}

// MARK: - Locations

extension Entry: Locatable {
    public var location: String { GetEntry(entryID: id).renderedPath }
}

extension Diary: Locatable {
    public var location: String { GetDiary(diaryID: id).renderedPath }
}
