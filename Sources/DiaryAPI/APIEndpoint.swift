import ByteEncodings
import Foundation
import HTTPTypes

/// Who may call an endpoint.
public enum Access: Sendable {
    /// Anyone. A token, when sent, is checked (401 for a bad one) and shows its owner's
    /// unlisted and private entries as well.
    case open
    /// A caller with a valid bearer token.
    case token
}

/// One operation of the API, used from both sides: the client turns a value into a request
/// (`pathParameters`, `query`, `body`) and decodes `Response`; the server matches `path`,
/// rebuilds the value with `init(_:)` and encodes a `Response`.
public protocol APIEndpoint: Sendable {
    associatedtype Body: Codable & ValidatableBody = NoBody
    associatedtype Response: Codable & Sendable

    static var method: HTTPRequest.Method { get }
    static var path: PathTemplate { get }
    static var access: Access { get }
    /// The status of a successful answer: 200, 201 for a creation, 204 with no body.
    static var successStatus: Int { get }
    /// The scope a token must have to call it (`TokenScope`): `read` for a GET, `write` for
    /// anything else, unless the endpoint says more (managing tokens needs `write`).
    static var requiredScope: TokenScope { get }

    /// The values of the `{name}` parts of `path`.
    var pathParameters: [String: String] { get }
    var query: [URLQueryItem] { get }
    var body: Body? { get }

    /// Server side: the endpoint a request asked for, or the parameter that was wrong.
    init(_ request: EndpointRequest<Body>) throws(ParameterError)
}

extension APIEndpoint {
    public static var access: Access { .open }
    public static var successStatus: Int { 200 }
    public static var requiredScope: TokenScope { method == .get || method == .head ? .read : .write }
    public var pathParameters: [String: String] { [:] }
    public var query: [URLQueryItem] { [] }
    public var body: Body? { nil }

    /// The path with its parameters filled in, as the client sends it.
    public var renderedPath: String { Self.path.render(pathParameters) }

    /// The path and the query (`/api/entries?page=2&per_page=20`), percent-encoded.
    public var renderedTarget: String {
        let query = query.map { item in
            PercentEncoding.encode(item.name) + (item.value.map { "=" + PercentEncoding.encode($0) } ?? "")
        }
        return query.isEmpty ? renderedPath : renderedPath + "?" + query.joined(separator: "&")
    }
}

/// An endpoint that answers one page of a longer list.
public protocol PagedEndpoint: APIEndpoint {
    var page: PageRequest { get set }
}

/// What the server hands an endpoint to rebuild itself from.
public struct EndpointRequest<Body: Sendable>: Sendable {
    public var pathParameters: [String: String]
    /// Decoded query items in the order sent.
    public var query: [(name: String, value: String)]
    public var body: Body?

    public init(pathParameters: [String: String] = [:], query: [(name: String, value: String)] = [], body: Body? = nil) {
        self.pathParameters = pathParameters
        self.query = query
        self.body = body
    }

    /// A path parameter that must be a positive 64-bit id.
    public func id(_ name: String) throws(ParameterError) -> Int64 {
        try Self.positiveInt64(pathParameters[name] ?? "", name: name)
    }

    /// The value of a query parameter, or nil; a parameter sent twice is refused (`QueryParameters`).
    public func queryValue(_ name: String) throws(ParameterError) -> String? {
        try QueryParameters.value(of: name, in: query)
    }

    /// `page` and `per_page` from the query, checked against `PageRequest`'s limits.
    public func pageRequest() throws(ParameterError) -> PageRequest {
        var page = 1, perPage = PageRequest.defaultPerPage
        if let text = try queryValue("page") {
            page = try Self.positiveInt(text, name: "page")
        }
        if let text = try queryValue("per_page") {
            perPage = try Self.positiveInt(text, name: "per_page")
            guard perPage <= PageRequest.maxPerPage else {
                throw ParameterError(name: "per_page", message: "must be at most \(PageRequest.maxPerPage)")
            }
        }
        // The documented bound, whatever per_page is: page × 100 stays within 64 bits.
        guard page <= Int.max / PageRequest.maxPerPage else {
            throw ParameterError(name: "page", message: "must be at most \(Int.max / PageRequest.maxPerPage)")
        }
        return PageRequest(page: page, perPage: perPage)
    }

    static func positiveInt64(_ text: String, name: String) throws(ParameterError) -> Int64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw ParameterError(name: name, message: "must be a positive integer, not '\(text.prefix(40))'")
        }
        guard let value = Int64(text), value > 0 else {
            throw ParameterError(name: name, message: "must be a positive integer no larger than \(Int64.max)")
        }
        return value
    }

    static func positiveInt(_ text: String, name: String) throws(ParameterError) -> Int {
        Int(try positiveInt64(text, name: name))
    }
}

/// A path or query parameter that is not what the endpoint takes; the server answers 400.
public struct ParameterError: Error, Sendable, Equatable {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
}

/// Which page of a list, counted from 1.
public struct PageRequest: Sendable, Equatable {
    public static let defaultPerPage = 20
    public static let maxPerPage = 100

    public var page: Int
    public var perPage: Int

    public init(page: Int = 1, perPage: Int = PageRequest.defaultPerPage) {
        self.page = page
        self.perPage = perPage
    }

    var queryItems: [URLQueryItem] {
        [URLQueryItem(name: "page", value: String(page)), URLQueryItem(name: "per_page", value: String(perPage))]
    }

    /// The rows this page skips (an SQL OFFSET), the same for entries and images: one short of
    /// `Int.max` when that overflows, past any row but room for the one read past the page.
    public var offset: Int {
        let (offset, overflow) = max(page - 1, 0).multipliedReportingOverflow(by: max(perPage, 0))
        return overflow ? Int.max - 1 : offset
    }

    /// The numbers of the pages before and after this one, for a list of `total` items: none
    /// after the last (or past what an `Int` counts), none before the first. `moreFollow`,
    /// when given, says whether items follow instead of `total` (which is then an estimate).
    public func neighbours(total: Int, moreFollow: Bool? = nil) -> (next: Int?, previous: Int?) {
        let (seen, overflow) = page.multipliedReportingOverflow(by: perPage)
        let more = moreFollow ?? (seen < total)
        return (!overflow && more ? page + 1 : nil, page > 1 ? page - 1 : nil)
    }
}
