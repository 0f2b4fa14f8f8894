import DiaryAPI
import HTTPCore
import HTTPTypes

/// Matches a request to a route by path template and method, transport-free, so that it
/// is tested in-process. Unknown paths get 404, known paths with another method 405 + `Allow`.
public struct Router: Sendable {
    /// One method on one path, answering with everything already decoded by the route itself.
    public struct Route: Sendable {
        public let method: HTTPRequest.Method
        public let path: PathTemplate
        /// `path` as written, made once: every answer is labelled with it (`Response.route`).
        public let template: String
        let respond: @Sendable (_ request: Request, _ pathParameters: [String: String]) -> Response

        public init(method: HTTPRequest.Method, path: PathTemplate, respond: @escaping @Sendable (Request, [String: String]) -> Response) {
            self.method = method
            self.path = path
            template = path.description
            self.respond = respond
        }

        /// Runs the route with the request and its answer labelled with the route's template.
        func answer(_ request: Request, _ parameters: [String: String]) -> Response {
            var request = request
            request.route = template
            var response = respond(request, parameters)
            response.route = template
            return response
        }
    }

    public private(set) var routes: [Route] = []
    /// How the router's own problems (a broken path, no such resource, a method not allowed)
    /// are answered: problem+json unless set otherwise (the application answers HTML pages
    /// outside `/api/`). `headers` are extra headers, such as `Allow`.
    var problemResponse: @Sendable (_ request: Request, _ problem: Problem, _ headers: HTTPFields) -> Response = { _, problem, headers in
        Response(problem: problem, headers: headers)
    }

    public init() {}

    public mutating func add(_ route: Route) {
        routes.append(route)
    }

    public func respond(to request: Request) -> Response {
        guard let segments = request.pathSegments() else {
            return problemResponse(request, .badRequest("The request path has a broken percent-escape or is not UTF-8."), [:])
        }
        // HEAD is GET without the body; the transport leaves the body out.
        let method = request.method == .head ? .get : request.method
        var allowed: [HTTPRequest.Method] = []
        var template: String?
        for route in routes {
            guard let parameters = route.path.match(segments) else { continue }
            if route.method == method {
                return route.answer(request, parameters)
            }
            allowed.append(route.method)
            template = route.template
        }
        guard !allowed.isEmpty else {
            return problemResponse(request, .notFound("There is no resource at \(request.path.prefix(200))."), [:])
        }
        if allowed.contains(.get) { allowed.append(.head) }
        allowed.append(.options)
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        var response: Response
        if request.method == .options {
            var headers = HTTPFields.standard(contentType: "text/plain; charset=utf-8", cacheable: true)
            headers.add(.allow, allow)
            response = Response(status: 204, headers: headers)
        } else {
            response = methodNotAllowed(request, allow: allow)
        }
        response.route = template
        return response
    }

    private func methodNotAllowed(_ request: Request, allow: String) -> Response {
        problemResponse(
            request,
            Problem(
                title: "Method Not Allowed", status: 405,
                detail: "\(request.method.rawValue.prefix(20)) is not allowed on \(request.path.prefix(200)); use \(allow)."
            ),
            [.allow: allow]
        )
    }
}
