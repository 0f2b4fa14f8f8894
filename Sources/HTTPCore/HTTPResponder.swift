import HTTPTypes

/// What a transport serves. Called on the transport's worker threads, hence `Sendable`
/// and synchronous: a worker owns its request from the first byte to the last.
public protocol HTTPResponder: Sendable {
    /// Answers one complete request.
    func respond(to request: Request) -> Response

    /// Answers a request the transport refused before it was complete (too large, malformed).
    /// `request` holds what was read: method, path and headers, with an empty body.
    func respond(to error: HTTPRequestError, request: Request) -> Response

    /// Whether answering `request` may wait on something other than the CPU, such as a
    /// durable write. The transport answers such requests on threads of their own, so that
    /// its worker threads go on serving other connections meanwhile.
    func mayBlock(_ request: Request) -> Bool

    /// Whether answering `request` may take long on the CPU or in the database (a search no
    /// cache answers): the transport answers such requests on threads of their own, apart from
    /// both its workers and the threads of requests that may block, so that they hold up
    /// neither the quick reads nor the writes.
    func mayTakeLong(_ request: Request) -> Bool

    /// The largest body `request` (its head: method, path, headers) may send, when it differs
    /// from the transport's limit (nil): an image upload may be larger than any JSON body.
    /// Asked before the body is read, so that an upload past it is refused from its
    /// `Content-Length` with nothing read.
    func maxBodySize(for request: Request) -> Int?
}

extension HTTPResponder {
    /// Every method but the safe ones (RFC 9110 §9.2.1) may write, and so wait on the disk.
    public func mayBlock(_ request: Request) -> Bool {
        ![.get, .head, .options].contains(request.method)
    }

    public func mayTakeLong(_ request: Request) -> Bool {
        false
    }

    public func maxBodySize(for request: Request) -> Int? {
        nil
    }

    public func respond(to error: HTTPRequestError, request: Request) -> Response {
        Response(
            status: error.status,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: Array("\(error.reason)\n".utf8)
        )
    }
}

/// Why the transport refused a request before handing it to the responder.
public struct HTTPRequestError: Error, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var reason: String

    public init(status: HTTPResponse.Status, reason: String) {
        self.status = status
        self.reason = reason
    }

    public static func bodyTooLarge(limit: Int) -> HTTPRequestError {
        HTTPRequestError(status: 413, reason: "The request body is larger than the limit of \(limit) bytes.")
    }

    public static func malformed(_ reason: String) -> HTTPRequestError {
        HTTPRequestError(status: 400, reason: reason)
    }
}
