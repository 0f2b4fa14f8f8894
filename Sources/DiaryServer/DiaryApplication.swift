import DiaryAPI
import DiaryStore
import HTTPCore

/// The diary service as an `HTTPResponder`: every endpoint of the contract routed to its
/// handler on a store. Knows nothing of sockets; the transport calls it on its threads.
public struct DiaryApplication: HTTPResponder {
    public struct Configuration: Sendable {
        /// Origins (`https://example.com`) whose browser scripts may call the API; none by default.
        public var corsOrigins: [String]
        /// Bytes of answers to open GETs kept for reuse until the next write (see
        /// `ResponseCache`); 0 keeps none.
        public var responseCacheBytes: Int

        public init(corsOrigins: [String] = [], responseCacheBytes: Int = 16 << 20) {
            self.corsOrigins = corsOrigins
            self.responseCacheBytes = responseCacheBytes
        }
    }

    public let router: Router
    /// Nil when the configuration keeps no answers.
    public let responseCache: ResponseCache?
    let cors: CORSPolicy

    /// - Parameter log: called with the cause of every 5xx answer; never handed a token or a body.
    public init(store: any DiaryStore, configuration: Configuration = Configuration(), log: @escaping @Sendable (String) -> Void = { _ in }) {
        var router = Router()
        let cache = configuration.responseCacheBytes > 0
            ? ResponseCache(byteLimit: configuration.responseCacheBytes) { try? store.dataVersion() }
            : nil
        Self.addRoutes(to: &router, handlers: Handlers(store: store, log: log), authenticator: Authenticator(store: store), cache: cache)
        self.router = router
        responseCache = cache
        cors = CORSPolicy(allowedOrigins: configuration.corsOrigins)
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        cors.respond(to: request) { request in
            responseCache?.keptAnswer(to: request) ?? router.respond(to: request)
        }
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
    private static func addRoutes(to router: inout Router, handlers h: Handlers, authenticator auth: Authenticator, cache: ResponseCache?) {
        // Entries
        router.add(ListEntries.self, authenticator: auth, cache: cache) { endpoint, _ throws(Problem) in
            try h.entries(diaryID: nil, page: endpoint.page, filter: endpoint.filter)
        }
        router.add(ListDiaryEntries.self, authenticator: auth, cache: cache) { endpoint, _ throws(Problem) in
            try h.entries(diaryID: endpoint.diaryID, page: endpoint.page, filter: endpoint.filter)
        }
        router.add(GetEntry.self, authenticator: auth, cache: cache) { endpoint, _ throws(Problem) in
            let entry = try h.found("entry \(endpoint.entryID)") { () throws(StoreError) in try h.store.entry(id: endpoint.entryID) }
            return Reply(entry, lastModified: entry.updated)
        }
        router.add(CreateEntry.self, authenticator: auth, handler: h.createEntry)
        router.add(ReplaceEntry.self, authenticator: auth) { endpoint, context throws(Problem) in
            let body = try endpoint.body.required()
            return try h.updateEntry(endpoint.entryID, title: body.title, body: body.body, tags: body.tags, context)
        }
        router.add(UpdateEntry.self, authenticator: auth) { endpoint, context throws(Problem) in
            let body = try endpoint.body.required()
            return try h.updateEntry(endpoint.entryID, title: body.title, body: body.body, tags: body.tags, context)
        }
        router.add(DeleteEntry.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            try h.run { () throws(StoreError) in
                try h.store.deleteEntry(id: endpoint.entryID, userID: user.id, precondition: context.entryPrecondition)
            }
            return Reply(NoContent())
        }

        // Diaries
        router.add(ListDiaries.self, authenticator: auth, cache: cache) { _, _ throws(Problem) in
            let diaries = try h.run { () throws(StoreError) in try h.store.diaries() }
            return Reply(DiaryList(diaries: diaries), lastModified: diaries.map(\.updated).max())
        }
        router.add(GetDiary.self, authenticator: auth, cache: cache) { endpoint, _ throws(Problem) in
            let diary = try h.found("diary \(endpoint.diaryID)") { () throws(StoreError) in try h.store.diary(id: endpoint.diaryID) }
            return Reply(diary, lastModified: diary.updated)
        }
        router.add(CreateDiary.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            let body = try endpoint.body.required()
            let key = try context.idempotencyKey(for: body)
            let created = try h.run { () throws(StoreError) in try h.store.createDiary(ownerID: user.id, title: body.title, idempotency: key) }
            return Reply(created.value, replayed: created.replayed)
        }

        // Tags, export and import
        router.add(ListTags.self, authenticator: auth, cache: cache) { _, _ throws(Problem) in
            Reply(TagList(tags: try h.run { () throws(StoreError) in try h.store.tags() }))
        }
        router.add(ExportEntries.self, authenticator: auth) { endpoint, _ throws(Problem) in
            h.export(endpoint.format)
        }
        router.add(ImportEntries.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            let body = try endpoint.body.required()
            return Reply(try h.run { () throws(StoreError) in try h.store.importEntries(userID: user.id, entries: body.entries) })
        }

        // Users and service
        router.add(GetCurrentUser.self, authenticator: auth) { _, context throws(Problem) in
            Reply(try context.authenticatedUser())
        }
        router.add(GetHealth.self, authenticator: auth, cache: cache) { _, _ throws(Problem) in
            Reply(HealthStatus(status: "ok"))
        }
        router.add(OpenAPIDocument.route)
    }
}

// MARK: - Handlers

/// The work behind the routes, and the one place store failures become problems.
struct Handlers: Sendable {
    let store: any DiaryStore
    let log: @Sendable (String) -> Void
    /// The cursor codec, made from the store's secret on first use.
    let cursors = CursorCodecCache()

    /// Runs a store call; a failure becomes its problem.
    func run<T>(_ body: () throws(StoreError) -> T) throws(Problem) -> T {
        do {
            return try body()
        } catch {
            throw problem(error)
        }
    }

    /// The answer to a store failure; an unavailable store is logged, as the client learns nothing of why.
    func problem(_ error: StoreError) -> Problem {
        if error.kind == .unavailable { log("store unavailable: \(error)") }
        return Problem(error)
    }

    /// Runs a lookup; nil becomes 404 naming `subject`.
    func found<T>(_ subject: String, _ lookup: () throws(StoreError) -> T?) throws(Problem) -> T {
        guard let value = try run(lookup) else { throw .notFound("\(subject) does not exist") }
        return value
    }

    /// A page, last modified when its entries last changed. That time is read before the page,
    /// so a write between the two reads makes it older, never newer, than what the page shows.
    /// A cursor must be one this list handed out (signed, same filter and diary): 400 otherwise.
    func entries(diaryID: Int64?, page: PageRequest, filter: EntryFilter) throws(Problem) -> Reply<EntryPage> {
        let codec = try run { () throws(StoreError) in try cursors.codec(store) }
        var position: EntryPosition?
        if let cursor = filter.cursor {
            guard let decoded = codec.decode(cursor, filter: filter, diaryID: diaryID) else {
                throw .invalidParameter(ParameterError(name: "cursor", message: "is not a cursor this list handed out, or it was altered"))
            }
            position = decoded
        }
        return try run { () throws(StoreError) in
            let lastModified = try store.lastModified(diaryID: diaryID)
            let results = try store.entries(EntryQuery(diaryID: diaryID, page: page, filter: filter, position: position))
            var entryPage = results.page
            entryPage.nextCursor = results.next.map { codec.encode($0, filter: filter, diaryID: diaryID) }
            return Reply(entryPage, lastModified: lastModified)
        }
    }

    /// Every entry by id, pulled from the store in batches as the client reads: memory stays
    /// flat however large the export. A store failure mid-way breaks the stream (the client
    /// sees an incomplete chunked body), as the status line is already sent.
    func export(_ format: ExportFormat) -> Reply<[Entry]> {
        let batches = store.exportBatches()
        let writer = ExportWriter(format: format)
        let log = log
        let stream = HTTPBodyStream { () throws -> [UInt8]? in
            do {
                return writer.chunk(try batches.next())
            } catch {
                log("export stopped: \(error)")
                throw error
            }
        }
        return Reply([], stream: stream, contentType: format.mediaType)
    }

    /// An unknown `diary_id` in the body is a field the client got wrong: 422, not 404.
    func createEntry(_ endpoint: CreateEntry, _ context: RequestContext) throws(Problem) -> Reply<Entry> {
        let user = try context.authenticatedUser()
        let body = try endpoint.body.required()
        let key = try context.idempotencyKey(for: body)
        do {
            let created = try store.createEntry(
                userID: user.id, diaryID: body.diaryID, title: body.title, body: body.body, tags: body.tags ?? [], created: body.created, idempotency: key
            )
            return Reply(created.value, replayed: created.replayed)
        } catch where error.kind == .notFound && body.diaryID.map({ error.subject == .diary($0) }) == true {
            throw .validation(ValidationFailure([FieldError(field: "diary_id", message: "\(error.subject) does not exist")]))
        } catch {
            throw problem(error)
        }
    }

    /// PUT and PATCH: the fields given change, if the caller owns the entry and `If-Match` holds.
    func updateEntry(_ id: Int64, title: String?, body: String?, tags: [String]?, _ context: RequestContext) throws(Problem) -> Reply<Entry> {
        let user = try context.authenticatedUser()
        let entry = try run { () throws(StoreError) in
            try store.updateEntry(id: id, userID: user.id, title: title, body: body, tags: tags, precondition: context.entryPrecondition)
        }
        return Reply(entry, lastModified: entry.updated)
    }
}

extension Optional {
    /// The decoded body; the router always sets it for endpoints that take one.
    func required() throws(Problem) -> Wrapped {
        guard let self else { throw .badRequest("The request needs a body.") }
        return self
    }
}

// MARK: - Locations

extension Entry: Locatable {
    public var location: String { GetEntry(entryID: id).renderedPath }
}

extension Diary: Locatable {
    public var location: String { GetDiary(diaryID: id).renderedPath }
}
