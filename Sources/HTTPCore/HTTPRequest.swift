import HTTPTypes

/// One HTTP request as the transport received it: the path and query stay raw (still
/// percent-encoded) so that the router, not the transport, decides what is malformed.
public struct HTTPRequest: Sendable {
    /// The method as sent; unknown methods are kept so they can get a 405 or 501.
    public var method: HTTPMethod
    /// The request path, still percent-encoded, without the query (`/api/entries/42`).
    public var path: String
    /// The raw query string after `?`, still percent-encoded; nil when the target had no `?`.
    public var rawQuery: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(method: HTTPMethod, path: String, rawQuery: String? = nil, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
    }

    /// Builds a request from a request target such as `/api/entries?page=2`, as tests and clients write it.
    public init(method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        if let mark = target.firstIndex(of: "?") {
            self.init(method: method, path: String(target[..<mark]), rawQuery: String(target[target.index(after: mark)...]), headers: headers, body: body)
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }
}
