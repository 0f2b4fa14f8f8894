import AtomPub
import DiaryAPI
import DiaryStore
import Foundation
import HTTPCore
import HTTPTypes

// MARK: - AtomPub

extension DiaryApplication {
    /// AtomPub at `/atom` (`AtomPubPaths`): the service document, each of the caller's diaries
    /// as a collection, and its entries as members. Every request is the caller's own
    /// (`Authenticator.atomPubHolder`); a GET's answer is kept in the response cache under
    /// its target and the exact credentials sent, so it is served again only to a request
    /// carrying the same ones, and only until the next write (a revoked token is a write).
    static func addAtomPub(to router: inout Router, handlers h: Handlers, authenticator: Authenticator, cache: ResponseCache?, site: SiteAddress) {
        let routes = AtomPubRoutes(authenticator: authenticator, cache: cache, site: site)
        router.add(routes.route(.get, AtomPubPaths.Route.service, scope: .read) { call throws(Problem) in
            let diaries = try h.ownDiaries(of: call.user)
            let body = call.documents.service(owner: call.user.name, diaries: diaries)
            return AtomPubAnswer(body: body, contentType: AtomPubDocuments.serviceMediaType, lastModified: diaries.map(\.updated).max())
        })
        router.add(routes.route(.get, AtomPubPaths.Route.collection, scope: .read) { call throws(Problem) in
            let diary = try h.atomDiary(try call.id("diary_id"), of: call.user)
            let cursor = try call.cursor()
            let page = try h.atomCollectionPage(diary, cursor: cursor, context: call.context)
            let next = page.value.nextCursor.map { AtomPubPaths.collection(diary.id, cursor: $0) }
            let body = call.documents.collection(diary: diary, entries: page.value.entries, nextPath: next)
            return AtomPubAnswer(body: body, contentType: AtomPubDocuments.feedMediaType, lastModified: page.lastModified)
        })
        router.add(routes.route(.post, AtomPubPaths.Route.collection, scope: .write) { call throws(Problem) in
            let diary = try h.atomDiary(try call.id("diary_id"), of: call.user)
            let entry = try h.atomCreate(diaryID: diary.id, try call.entryDocument(), user: call.user)
            return AtomPubAnswer(
                status: 201, body: call.documents.entry(entry), contentType: AtomPubDocuments.entryMediaType,
                location: call.documents.baseURL + AtomPubPaths.member(diaryID: entry.diaryID, entryID: entry.id), lastModified: entry.updated
            )
        })
        router.add(routes.route(.get, AtomPubPaths.Route.member, scope: .read) { call throws(Problem) in
            let entry = try h.atomMember(diaryID: try call.id("diary_id"), entryID: try call.id("entry_id"), of: call.user)
            return AtomPubAnswer(body: call.documents.entry(entry), contentType: AtomPubDocuments.entryMediaType, lastModified: entry.updated)
        })
        router.add(routes.route(.put, AtomPubPaths.Route.member, scope: .write) { call throws(Problem) in
            let document = try call.entryDocument()
            let entry = try h.atomReplace(
                diaryID: try call.id("diary_id"), entryID: try call.id("entry_id"), document, user: call.user, precondition: call.precondition
            )
            return AtomPubAnswer(body: call.documents.entry(entry), contentType: AtomPubDocuments.entryMediaType, lastModified: entry.updated)
        })
        router.add(routes.route(.delete, AtomPubPaths.Route.member, scope: .write) { call throws(Problem) in
            try h.atomDelete(diaryID: try call.id("diary_id"), entryID: try call.id("entry_id"), user: call.user, precondition: call.precondition)
            return AtomPubAnswer(status: 204, body: [], contentType: nil)
        })
    }
}

/// What an AtomPub route answers when it succeeds.
struct AtomPubAnswer: Sendable {
    var status = 200
    var body: [UInt8]
    var contentType: String?
    var location: String?
    var lastModified: Date?
}

/// One AtomPub request, its caller authenticated: what a route reads from it.
struct AtomPubCall: Sendable {
    let request: Request
    let pathParameters: [String: String]
    let holder: TokenHolder
    let documents: AtomPubDocuments

    var user: User { holder.user }
    var context: RequestContext { RequestContext(holder: holder, request: request) }

    /// A numeric id from the path; anything else is no such resource.
    func id(_ name: String) throws(Problem) -> Int64 {
        guard let text = pathParameters[name], let id = Int64(text), id > 0, String(id) == text else {
            throw .notFound("There is no \(name.dropLast(3)) \(pathParameters[name]?.prefix(40) ?? "") here.")
        }
        return id
    }

    /// The `cursor` of a collection page's address (`rel="next"`); none for the first page.
    func cursor() throws(Problem) -> String? {
        guard let query = request.queryItems() else { throw .badRequest("The query string has a broken percent-escape or is not UTF-8.") }
        do {
            let cursor = try QueryParameters.value(of: "cursor", in: query.map { (name: $0.name, value: $0.value) })
            return cursor?.isEmpty == true ? nil : cursor
        } catch {
            throw .invalidParameter(error)
        }
    }

    /// The body as an AtomPub entry: Atom XML (415 otherwise), read with no document type (400).
    func entryDocument() throws(Problem) -> AtomEntryDocument {
        guard ["application/atom+xml", "application/xml", "text/xml"].contains(request.mediaType) else {
            throw .unsupportedMediaType("Send the entry as Atom XML with the header 'Content-Type: \(AtomPubDocuments.entryMediaType)'.")
        }
        do {
            return try AtomEntryParser.parse(request.body)
        } catch {
            throw .badRequest(error.message)
        }
    }

    /// `If-Match` as a check on the stored entry: the tag its GET gave (the entry document's bytes).
    var precondition: EntryPrecondition? {
        guard let list = request.headers[.ifMatch] else { return nil }
        let documents = documents
        return { entry in EntityTag.list(list, contains: EntityTag.of(documents.entry(entry)), weak: false) }
    }
}

/// Makes AtomPub's routes: authentication and scope first, then the work; problems as
/// problem+json, a 401 with the Basic challenge; a GET's 200 kept per credentials.
struct AtomPubRoutes: Sendable {
    let authenticator: Authenticator
    let cache: ResponseCache?
    let site: SiteAddress

    func route(
        _ method: HTTPRequest.Method, _ path: PathTemplate, scope: TokenScope,
        _ answer: @escaping @Sendable (AtomPubCall) throws(Problem) -> AtomPubAnswer
    ) -> Router.Route {
        let authenticator = authenticator, site = site, cache = method == .get ? cache : nil
        return Router.Route(method: method, path: path) { request, parameters in
            let build = { () -> Result<Representation, ResponseCache.Uncached> in
                do throws(Problem) {
                    let holder = try authenticator.atomPubHolder(for: request)
                    guard holder.scope.allows(scope) else { throw .insufficientScope(needed: scope) }
                    let call = AtomPubCall(request: request, pathParameters: parameters, holder: holder, documents: AtomPubDocuments(baseURL: site.url))
                    return Self.result(try answer(call), method: method)
                } catch {
                    let challenge: HTTPFields = error.status == 401 ? [.wwwAuthenticate: Authenticator.basicChallenge] : [:]
                    return .failure(.init(response: Response(problem: error, headers: challenge)))
                }
            }
            guard let cache else { return build().response(to: request) }
            return cache.answer(request, build: build)
        }
    }

    /// A GET's 200 as a representation (ETag, Last-Modified, 304s), anything else as sent.
    /// `private`: an answer to credentials is for no shared cache outside.
    private static func result(_ answer: AtomPubAnswer, method: HTTPRequest.Method) -> Result<Representation, ResponseCache.Uncached> {
        var headers = HTTPFields.standard(contentType: answer.contentType ?? "", cacheable: true)
        headers[.cacheControl] = "private, no-cache"
        if answer.contentType == nil { headers[.contentType] = nil }
        if let location = answer.location { headers.add(.location, location) }
        let representation = Representation(headers: headers, body: answer.body, lastModified: answer.lastModified)
        guard answer.status == 200 else {
            var response = representation.response
            response.status = HTTPResponse.Status(code: answer.status)
            if answer.status == 204 { response.headers[.eTag] = nil }
            return .failure(.init(response: response))
        }
        return method == .get ? .success(representation) : .failure(.init(response: representation.response))
    }
}
