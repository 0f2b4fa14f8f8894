import DiaryAPI
import Foundation
import HTTPCore
import HTTPTypes

/// The handler of one endpoint: the endpoint value, rebuilt from the request, and its context.
public typealias EndpointHandler<E: APIEndpoint> = @Sendable (E, RequestContext) throws(Problem) -> Reply<E.Response>

/// What a handler answers: the response value and what the headers say about it.
public struct Reply<Value: Sendable>: Sendable {
    public var value: Value
    /// When the resource last changed, for `Last-Modified` and `If-Modified-Since`.
    public var lastModified: Date?
    /// True when an idempotency key replays an earlier creation.
    public var replayed: Bool
    /// When set, the body is this stream (of `contentType`), sent chunked, instead of `value`.
    public var stream: HTTPBodyStream?
    public var contentType: String?

    public init(_ value: Value, lastModified: Date? = nil, replayed: Bool = false, stream: HTTPBodyStream? = nil, contentType: String? = nil) {
        self.value = value
        self.lastModified = lastModified
        self.replayed = replayed
        self.stream = stream
        self.contentType = contentType
    }
}

extension Router {
    /// Adds the route of `endpoint`: the contract decides the method, path, access, body type
    /// and success status; `handler` only does the work. Answers to an open GET are kept in
    /// `cache` when there is one.
    public mutating func add<E: APIEndpoint>(
        _ endpoint: E.Type,
        authenticator: Authenticator,
        cache: ResponseCache? = nil,
        handler: @escaping EndpointHandler<E>
    ) {
        let cache = E.method == .get && E.access == .open ? cache : nil
        add(Route(method: E.method, path: E.path) { request, pathParameters in
            // An answer to a token may show its owner's private entries: it is never kept, and
            // no cache outside may keep it either.
            let personal = request.headers[.authorization] != nil
            let build = { () -> Result<Representation, ResponseCache.Uncached> in
                do throws(Problem) {
                    let (value, context) = try Self.decode(E.self, from: request, pathParameters: pathParameters, authenticator: authenticator)
                    return Self.encode(try handler(value, context), for: value, cacheable: E.access == .open && !personal)
                } catch {
                    return .failure(ResponseCache.Uncached(response: Response(problem: error)))
                }
            }
            guard let cache, !personal else { return build().response(to: request) }
            return cache.answer(request, build: build)
        })
    }

    /// Query, then the caller, then the body: each is checked before the next is looked at.
    private static func decode<E: APIEndpoint>(
        _: E.Type, from request: Request, pathParameters: [String: String], authenticator: Authenticator
    ) throws(Problem) -> (E, RequestContext) {
        guard let query = request.queryItems() else {
            throw .badRequest("The query string has a broken percent-escape or is not UTF-8.")
        }
        // An open endpoint checks a token that was sent: a reader must not mistake a refused
        // token for a public answer.
        let holder = E.access == .token || request.headers[.authorization] != nil ? try authenticator.holder(for: request) : nil
        // A token's scope is checked before its body is read: a read token learns nothing of
        // what its write would have found wrong.
        if let holder, !holder.scope.allows(E.requiredScope) {
            throw .insufficientScope(needed: E.requiredScope)
        }
        var body: E.Body?
        if E.Body.self != NoBody.self {
            let decoded = try RequestBody.decode(E.Body.self, from: request)
            switch decoded.validated() {
            case .success(let valid): body = valid
            case .failure(let failure): throw .validation(failure)
            }
        }
        let endpointRequest = EndpointRequest(
            pathParameters: pathParameters, query: query.map { (name: $0.name, value: $0.value) }, body: body
        )
        do {
            return (try E(endpointRequest), RequestContext(holder: holder, request: request))
        } catch {
            throw .invalidParameter(error)
        }
    }

    /// The success response: JSON, and for a 200 a representation with a strong ETag; a GET's
    /// answer is 304 when the client's copy is current. Only a GET's representation is kept.
    private static func encode<E: APIEndpoint>(
        _ reply: Reply<E.Response>, for endpoint: E, cacheable: Bool
    ) -> Result<Representation, ResponseCache.Uncached> {
        var headers = HTTPFields.standard(contentType: "application/json; charset=utf-8", cacheable: cacheable)
        let uncached = { (response: Response) in Result<Representation, ResponseCache.Uncached>.failure(.init(response: response)) }
        if E.successStatus == 204 {
            headers[.contentType] = nil
            return uncached(Response(status: 204, headers: headers))
        }
        if let stream = reply.stream {
            headers[.contentType] = "\(reply.contentType ?? MediaTypes.json); charset=utf-8"
            return uncached(Response(status: HTTPResponse.Status(code: E.successStatus), headers: headers, stream: stream))
        }
        let body = JSONCoding.encode(reply.value)
        if E.successStatus == 201 {
            if let located = reply.value as? any Locatable { headers.add(.location, located.location) }
            if reply.replayed { headers.add(.idempotentReplayed, "true") }
            return uncached(Response(status: 201, headers: headers, body: body))
        }
        if let paged = endpoint as? any PagedEndpoint, let page = reply.value as? EntryPage {
            headers.add(.link, PageLinks.header(for: paged, page: page))
            headers.add(.totalCount, String(page.total))
        }
        guard E.successStatus == 200, [.get, .put, .patch].contains(E.method) else {
            return uncached(Response(status: HTTPResponse.Status(code: E.successStatus), headers: headers, body: body))
        }
        let representation = Representation(headers: headers, body: body, lastModified: reply.lastModified)
        // A PUT or PATCH answers with the resource's new state, the bytes a GET now gives: its
        // ETag is the one to send in the next If-Match (RFC 9110 §8.8.3), with no GET between.
        guard E.method == .get else { return uncached(representation.response) }
        return .success(representation)
    }
}

/// The `Link` header of a page: first, prev, next and last, as paths with the same per_page.
/// A search whose total is an estimate has no known last page: no `last`.
enum PageLinks {
    static func header(for endpoint: any PagedEndpoint, page: EntryPage) -> String {
        let last = page.totalIsEstimate ? Int.max : max(1, (page.total + page.perPage - 1) / page.perPage)
        var links: [(Int, String)] = [(1, "first")]
        if let prev = page.prevPage { links.append((min(prev, last), "prev")) }
        if let next = page.nextPage { links.append((next, "next")) }
        // No last page when the total is an estimate (it is not known), nor past the cap (it
        // would answer 400: the cursor goes there instead).
        if !page.totalIsEstimate, PageDepth.allows(PageRequest(page: last, perPage: page.perPage)) { links.append((last, "last")) }
        return links.map { number, relation in
            var linked = endpoint
            linked.page = PageRequest(page: number, perPage: page.perPage)
            if var filtered = linked as? any FilteredEndpoint {
                filtered.filter.cursor = nil  // A page number and a cursor do not go together.
                linked = filtered
            }
            return "<\(linked.renderedTarget)>; rel=\"\(relation)\""
        }.joined(separator: ", ")
    }
}
