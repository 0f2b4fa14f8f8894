import HTTPTypes

/// A complete HTTP response; the transport copies `body` out once when it sends it, or, when
/// `stream` is set, sends the stream's chunks instead (chunked, length unknown).
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var stream: HTTPBodyStream?

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), stream: HTTPBodyStream) {
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
