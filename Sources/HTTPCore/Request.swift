import HTTPTypes

/// One HTTP request as the transport received it: swift-http-types' head (method, target and
/// header fields) and the whole body, as hummingbird's `Request` wraps the same head. The
/// target stays raw (still percent-encoded) so that the router, not the transport, decides
/// what is malformed; it is split into path and query once, when the request is made.
public struct Request: Sendable {
    /// The head as received; its `path` is the request target exactly as sent (`/api/entries?page=2`).
    public let head: HTTPRequest
    public var body: [UInt8]
    /// The target's path, still percent-encoded, without the query (`/api/entries/42`).
    public let path: Substring
    /// The numeric address of the client's end of the connection (`192.0.2.7`, `2001:db8::1`),
    /// as the transport saw it; nil when it does not say (tests calling the responder).
    public var clientAddress: String?
    /// The raw query after `?`, still percent-encoded; nil when the target had no `?`.
    public let rawQuery: Substring?
    /// The path template of the route that matched (`/api/entries/{entry_id}`), set by the
    /// router before the route runs, so that an answer kept for reuse is labelled with it too.
    public var route: String?

    /// The method as sent; unknown methods are kept so they can get a 405 or 501.
    public var method: HTTPRequest.Method { head.method }
    /// Header fields in the order received; names compare case-insensitively, and a repeated
    /// field is kept, so that duplicates (a second `Content-Length`) can be refused.
    public var headers: HTTPFields { head.headerFields }
    /// The request target as sent: the path and the query.
    public var target: String { head.path ?? "" }

    public init(head: HTTPRequest, body: [UInt8] = []) {
        self.head = head
        self.body = body
        let target = head.path ?? ""
        if let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) {
            path = target[..<mark]
            rawQuery = target[target.utf8.index(after: mark)...]
        } else {
            path = target[...]
            rawQuery = nil
        }
    }

    /// A request for a target such as `/api/entries?page=2`, as tests and clients write it.
    public init(method: HTTPRequest.Method, target: String, headers: HTTPFields = HTTPFields(), body: [UInt8] = []) {
        self.init(head: HTTPRequest(method: method, scheme: nil, authority: nil, path: target, headerFields: headers), body: body)
    }
}
