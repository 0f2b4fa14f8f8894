import HTTPTypes

/// A complete HTTP response: swift-http-types' head (status and header fields) and the body.
/// The transport sends `body` (from a file of its own when `keptBody` is set and it chooses
/// to), or, when `stream` is set, the stream's chunks instead (chunked, length unknown).
public struct Response: Sendable {
    public var head: HTTPResponse
    public var body: [UInt8] {
        didSet { keptBody = nil }
    }
    /// `body` again, as kept by the response cache (`keepingBody()`): the transport may send
    /// it from what it prepared once for every response that shares it. Cleared whenever
    /// `body` is set, so that it is never a different body.
    public private(set) var keptBody: KeptBody?
    public var stream: HTTPBodyStream?
    /// The path template of the route that answered (`/api/entries/{entry_id}`), nil when none
    /// matched: metrics and the access log name requests by it, never by the raw path, so that
    /// their label sets stay small and no identifier or query string is recorded.
    public var route: String?
    /// This answer's id in the access log, which the transport sends as `X-Request-Id` after
    /// `headers`. Apart from them because most answers to reads are kept answers whose headers
    /// are shared: adding a field copied them all, a tenth of a cached read (callgrind).
    public var requestID: RequestID?

    public var status: HTTPResponse.Status {
        get { head.status }
        set { head.status = newValue }
    }

    public var headers: HTTPFields {
        get { head.headerFields }
        set { head.headerFields = newValue }
        _modify { yield &head.headerFields }
    }

    public init(status: HTTPResponse.Status, headers: HTTPFields = HTTPFields(), body: [UInt8] = []) {
        head = HTTPResponse(status: status, headerFields: headers)
        self.body = body
    }

    /// This response with its body marked as kept, to answer many requests: see `KeptBody`.
    public func keepingBody() -> Response {
        var kept = self
        kept.keptBody = KeptBody(body)
        return kept
    }

    public init(status: HTTPResponse.Status, headers: HTTPFields = HTTPFields(), stream: HTTPBodyStream) {
        self.init(status: status, headers: headers)
        self.stream = stream
    }
}

/// A body produced as it is sent: the transport calls `next` until it answers nil (the end),
/// one call at a time, each time the client has taken what came before. A throw breaks the
/// connection, so the client sees an incomplete body rather than a complete-looking one.
public struct HTTPBodyStream: Sendable {
    public let next: @Sendable () throws -> [UInt8]?

    public init(_ next: @escaping @Sendable () throws -> [UInt8]?) {
        self.next = next
    }

    /// Every chunk, joined: for tests and in-process callers.
    public func collect() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try next() { bytes += chunk }
        return bytes
    }
}
