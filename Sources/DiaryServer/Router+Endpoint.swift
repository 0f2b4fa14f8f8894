import DiaryAPI
import Foundation
import HTTPCore

/// The handler of one endpoint: the endpoint value, rebuilt from the request, and the caller.
public typealias EndpointHandler<E: APIEndpoint> = @Sendable (E, Caller) throws(Problem) -> E.Response

/// Who is asking. Set for endpoints whose `access` is `.token`, nil for open ones.
public struct Caller: Sendable {
    public let user: User?

    /// The authenticated user; the router has already answered 401 when there is none.
    public func authenticatedUser() throws(Problem) -> User {
        guard let user else { throw .unauthorized("This request needs a token.") }
        return user
    }
}

/// A response that names where the created resource lives, for `Location`.
public protocol Locatable {
    var location: String { get }
}

extension Router {
    /// Adds the route of `endpoint`: the contract decides the method, path, access, body type
    /// and success status; `handler` only does the work.
    public mutating func add<E: APIEndpoint>(
        _ endpoint: E.Type,
        authenticator: Authenticator,
        handler: @escaping EndpointHandler<E>
    ) {
        add(Route(method: E.method, path: E.path) { request, pathParameters in
            do throws(Problem) {
                let value = try Self.decode(E.self, from: request, pathParameters: pathParameters, authenticator: authenticator)
                let response = try handler(value.endpoint, value.caller)
                return Self.encode(response, for: E.self)
            } catch {
                return HTTPResponse(problem: error)
            }
        })
    }

    /// Query, then the caller, then the body: each is checked before the next is looked at.
    private static func decode<E: APIEndpoint>(
        _: E.Type, from request: HTTPRequest, pathParameters: [String: String], authenticator: Authenticator
    ) throws(Problem) -> (endpoint: E, caller: Caller) {
        guard let query = request.queryItems() else {
            throw .badRequest("The query string has a broken percent-escape or is not UTF-8.")
        }
        let user = E.access == .token ? try authenticator.user(for: request) : nil
        var body: E.Body?
        if E.Body.self != NoBody.self {
            try MediaType.requireJSON(request.headers["Content-Type"])
            let decoded = try JSONCoding.decodeBody(E.Body.self, from: request.body)
            switch decoded.validated() {
            case .success(let valid): body = valid
            case .failure(let failure): throw .validation(failure)
            }
        }
        let endpointRequest = EndpointRequest(
            pathParameters: pathParameters, query: query.map { (name: $0.name, value: $0.value) }, body: body
        )
        do {
            return (try E(endpointRequest), Caller(user: user))
        } catch {
            throw .invalidParameter(error)
        }
    }

    private static func encode<E: APIEndpoint>(_ response: E.Response, for _: E.Type) -> HTTPResponse {
        var headers = HTTPHeaders.standard(contentType: "application/json; charset=utf-8", cacheable: E.access == .open)
        if E.successStatus == 204 {
            headers.remove("Content-Type")
            return HTTPResponse(status: 204, headers: headers)
        }
        if E.successStatus == 201, let located = response as? any Locatable {
            headers.add("Location", located.location)
        }
        return HTTPResponse(status: E.successStatus, headers: headers, body: JSONCoding.encode(response))
    }
}

/// Content-Type checks for request bodies.
enum MediaType {
    /// Accepts `application/json`, with no charset or UTF-8; anything else is 415 with the fix.
    static func requireJSON(_ contentType: String?) throws(Problem) {
        let hint = "Send the body as JSON with the header -H 'Content-Type: application/json'."
        guard let contentType else {
            throw .unsupportedMediaType("The request has no Content-Type. \(hint)")
        }
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == "application/json" else {
            throw .unsupportedMediaType("The body is \(contentType.prefix(100)), not JSON. \(hint)")
        }
        for parameter in parts.dropFirst() where parameter.hasPrefix("charset=") {
            let charset = parameter.dropFirst("charset=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            guard charset == "utf-8" || charset == "utf8" else {
                throw .unsupportedMediaType("The body must be UTF-8, not \(charset.prefix(40)). \(hint)")
            }
        }
    }
}
