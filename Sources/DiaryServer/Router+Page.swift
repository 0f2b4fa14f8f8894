import AtomPub
import DiaryAPI
import DiaryPages
import Foundation
import HTTPCore
import HTTPTypes

/// What a page route reads from its request: the path's parameters and the query.
struct PageContext: Sendable {
    let pathParameters: [String: String]
    let query: [(name: String, value: String)]
    /// The client's address, as the transport gave it (`Request.clientAddress`).
    var clientAddress: String?

    /// The value of `name` in the query, nil when absent; sent twice, it is a 400 that names
    /// it, as on the API (`QueryParameters`).
    func query(_ name: String) throws(Problem) -> String? {
        do {
            return try QueryParameters.value(of: name, in: query)
        } catch {
            throw .invalidParameter(error)
        }
    }
}

/// A page or feed as built: its bytes, their type and when what they show last changed.
struct PageBody: Sendable {
    /// Anything but 200 is sent as it is and never kept (the search form saying why a query is refused).
    var status = 200
    var bytes: [UInt8]
    var contentType: String = PageHeaders.html
    var lastModified: Date?
}

extension Router {
    /// Adds a reading page or feed: a GET (and HEAD) answered to anyone alike, whatever
    /// `Authorization` says, so the answer is kept in `cache` and served again until the next
    /// write, with an ETag, `Last-Modified` and 304s, as the API's open GETs are. A problem
    /// becomes an HTML error page with its status, never kept.
    mutating func addPage(
        _ path: PathTemplate, cache: ResponseCache?, pages: PageRenderer,
        build: @escaping @Sendable (PageContext) throws(Problem) -> PageBody
    ) {
        add(Route(method: .get, path: path) { request, pathParameters in
            let make = { () -> Result<Representation, ResponseCache.Uncached> in
                guard let query = request.queryItems() else {
                    let problem = Problem.badRequest("The query string has a broken percent-escape or is not UTF-8.")
                    return .failure(.init(response: Response(errorPage: problem, pages: pages)))
                }
                do throws(Problem) {
                    let context = PageContext(pathParameters: pathParameters, query: query.map { ($0.name, $0.value) }, clientAddress: request.clientAddress)
                    let page = try build(context)
                    guard page.status == 200 else {
                        let headers = PageHeaders.document(contentType: page.contentType, cacheable: false)
                        return .failure(.init(response: Response(status: HTTPResponse.Status(code: page.status), headers: headers, body: page.bytes)))
                    }
                    let headers = PageHeaders.document(contentType: page.contentType, cacheable: true)
                    return .success(Representation(headers: headers, body: page.bytes, lastModified: page.lastModified))
                } catch {
                    return .failure(.init(response: Response(errorPage: error, pages: pages)))
                }
            }
            guard let cache else { return make().response(to: request) }
            return cache.answer(request, build: make)
        })
    }
}

extension Response {
    /// A problem as an HTML page with its status: what people reading the site see instead of
    /// problem+json. A 503 says when to try again; `extra` adds headers (`Allow` on a 405).
    init(errorPage problem: Problem, pages: PageRenderer, headers extra: HTTPFields = HTTPFields()) {
        var headers = PageHeaders.document(contentType: PageHeaders.html, cacheable: false)
        if problem.status == 503 || problem.status == 429 { headers.add(.retryAfter, "1") }
        for field in extra { headers[field.name] = field.value }
        let body = pages.error(status: problem.status, title: problem.title, detail: problem.detail)
        self.init(status: HTTPResponse.Status(code: problem.status), headers: headers, body: body)
    }

    /// Whether `request` is for the JSON API (`/api/…`) or AtomPub (`/atom…`), whose problems
    /// stay problem+json.
    static func isAPI(_ request: Request) -> Bool {
        request.path == "/api" || request.path.hasPrefix("/api/") || AtomPubPaths.contains(request.path)
    }
}
