import DiaryAPI
import DiaryStore
import HTTPCore

// MARK: - Handlers

/// The work behind the routes, and the one place store failures become problems.
struct Handlers: Sendable {
    let store: any DiaryStore
    let log: @Sendable (String) -> Void
    /// What a search that reads the store passes first.
    let admission: SearchAdmission
    /// The cursor codec, made from the store's secret on first use.
    let cursors = CursorCodecCache()
    /// Uploads' processing and limits.
    var mediaProcessing = MediaProcessing(limits: MediaLimits())

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
    /// A cursor must be one this list handed out (signed, same filter and diary): 400 otherwise,
    /// as is a `page` past `PageDepth`'s cap. A search first passes `admission`.
    func entries(diaryID: Int64?, page: PageRequest, filter: EntryFilter, context: RequestContext) throws(Problem) -> Reply<EntryPage> {
        if filter.cursor == nil, !PageDepth.allows(page) { throw PageDepth.problem(page) }
        guard filter.query != nil else { return try entries(diaryID: diaryID, page: page, filter: filter, viewerID: context.viewerID) }
        return try admission.admit(address: context.request.clientAddress, anonymous: context.user == nil) { () throws(Problem) in
            try entries(diaryID: diaryID, page: page, filter: filter, viewerID: context.viewerID)
        }
    }

    private func entries(diaryID: Int64?, page: PageRequest, filter: EntryFilter, viewerID: Int64?) throws(Problem) -> Reply<EntryPage> {
        let codec = try run { () throws(StoreError) in try cursors.codec(store) }
        var position: EntryPosition?
        if let cursor = filter.cursor {
            guard let decoded = codec.decode(cursor, filter: filter, diaryID: diaryID) else {
                throw .invalidParameter(ParameterError(name: "cursor", message: "is not a cursor this list handed out, or it was altered"))
            }
            position = decoded
        }
        return try run { () throws(StoreError) in
            let lastModified = try store.lastModified(diaryID: diaryID, viewerID: viewerID)
            let results = try store.entries(EntryQuery(diaryID: diaryID, page: page, filter: filter, position: position, viewerID: viewerID))
            var entryPage = PageDepth.capped(results.page)
            entryPage.nextCursor = results.next.map { codec.encode($0, filter: filter, diaryID: diaryID) }
            return Reply(entryPage, lastModified: lastModified)
        }
    }

    /// Every entry by id, pulled from the store in batches as the client reads: memory stays
    /// flat however large the export. `ownerID`'s entries, all of them, or every public entry
    /// without a token. A store failure mid-way breaks the stream (the client sees an incomplete
    /// chunked body), as the status line is already sent.
    func export(_ format: ExportFormat, ownerID: Int64?) -> Reply<[Entry]> {
        let batches = store.exportBatches(ownerID: ownerID)
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

    /// A page of the change feed, read in one transaction and then streamed
    /// (`ChangeFeedWriter`): memory holds one page (at most `ChangePage.maxLimit` changes),
    /// however many the reader syncs. A cursor past the tombstones kept is 410.
    func changes(_ endpoint: ListChanges, viewerID: Int64?) throws(Problem) -> Reply<ChangePage> {
        let page = try run { () throws(StoreError) in
            try store.changes(since: endpoint.since, viewerID: viewerID, limit: endpoint.limit)
        }
        let writer = ChangeFeedWriter(page: page)
        return Reply(page, stream: HTTPBodyStream { writer.chunk() }, contentType: MediaTypes.json)
    }

    /// An unknown `diary_id` in the body is a field the client got wrong: 422, not 404.
    func createEntry(_ endpoint: CreateEntry, _ context: RequestContext) throws(Problem) -> Reply<Entry> {
        let user = try context.authenticatedUser()
        let body = try endpoint.body.required()
        let key = try context.idempotencyKey(for: body)
        do {
            let created = try store.createEntry(
                userID: user.id, diaryID: body.diaryID, title: body.title, body: body.body, tags: body.tags ?? [], created: body.created,
                visibility: body.visibility?.value, draft: body.draft ?? false, idempotency: key
            )
            return Reply(created.value, replayed: created.replayed)
        } catch where error.kind == .notFound && body.diaryID.map({ error.subject == .diary($0) }) == true {
            throw .validation(ValidationFailure([FieldError(field: "diary_id", message: "\(error.subject) does not exist")]))
        } catch {
            throw problem(error)
        }
    }

    /// PUT and PATCH: the fields given change, if the caller owns the entry and `If-Match` holds.
    func updateEntry(_ id: Int64, _ changes: EntryChanges, _ context: RequestContext) throws(Problem) -> Reply<Entry> {
        let user = try context.authenticatedUser()
        let entry = try run { () throws(StoreError) in
            try store.updateEntry(id: id, userID: user.id, changes: changes, precondition: context.entryPrecondition)
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
