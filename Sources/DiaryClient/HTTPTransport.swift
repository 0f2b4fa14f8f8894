import Foundation
import HTTPTypes
// No FoundationNetworking here, nor anywhere in the client: linking it alone made every run of
// `diary` load libcurl and its libraries (see `CurlTransport`).

// MARK: - Request and response values

/// A request ready to go on the wire: what `DiaryClient` builds from an endpoint, as
/// swift-http-types' head (method, scheme, authority, the path with its query as sent, and
/// header fields) with its body: the vocabulary the server's `HTTPCore` and the API contract speak.
public struct PreparedRequest: Sendable, Equatable {
    public var head: HTTPRequest
    public var body: Data?

    public init(head: HTTPRequest, body: Data? = nil) {
        self.head = head
        self.body = body
    }

    /// A request for `url`, whose percent encoding goes on the wire as written.
    public init(method: HTTPRequest.Method, url: URL, headerFields: HTTPFields = [:], body: Data? = nil) {
        self.init(head: HTTPRequest(method: method, url: url, headerFields: headerFields), body: body)
    }

    /// The URL the head points at: scheme, authority, path and query.
    public var url: URL? { head.url }
}

/// A server's answer as received, before any decoding: swift-http-types' head (status and
/// header fields, a repeated field kept in order) and the body.
public struct RawResponse: Sendable, Equatable {
    public var head: HTTPResponse
    public var body: Data

    public init(head: HTTPResponse, body: Data = Data()) {
        self.head = head
        self.body = body
    }

    /// The status code.
    public var status: Int { head.status.code }

    public var headerFields: HTTPFields { head.headerFields }

    /// The value of a header, whatever the case of `name`; repeated fields joined with ", ".
    public func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { head.headerFields[$0] }
    }

    /// The media type of `Content-Type` without its parameters, in lower case.
    public var mediaType: String? {
        head.headerFields[.contentType].map { value in
            String(value.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
        }
    }
}

// MARK: - Transport seam

/// Moves one request to the server and its answer back. Any HTTP status is an answer;
/// only a failure to exchange bytes throws, as `TransportFailure`.
///
/// `SocketTransport` carries http:// and `CurlTransport` https://; request building,
/// decoding and errors do not know which.
protocol HTTPTransport: Sendable {
    func send(_ request: PreparedRequest) async throws(TransportFailure) -> RawResponse
    /// `send`, telling `progress` how much of the body has gone as it goes.
    func send(_ request: PreparedRequest, progress: @escaping UploadProgress) async throws(TransportFailure) -> RawResponse
    /// `send`, a successful answer's body streamed to `deliver` (see the extension).
    func receive(_ request: PreparedRequest, into deliver: BodySink) async throws -> RawResponse
}

extension HTTPTransport {
    /// A transport that cannot tell (`CurlTransport`) sends without telling.
    func send(_ request: PreparedRequest, progress: @escaping UploadProgress) async throws(TransportFailure) -> RawResponse {
        try await send(request)
    }

    /// `send`, handing a 2xx answer's body to `deliver` piece by piece as it arrives instead of
    /// keeping it: an export is as large as the diary. The answer returned has no body then;
    /// any other status keeps its (small, problem) body in the answer, `deliver` never called.
    /// `deliver`'s own failure (a full disk) stops the exchange and is thrown as it is.
    ///
    /// A transport that cannot stream (`CurlTransport`, which reads curl's output whole) hands
    /// the whole body over at once.
    func receive(_ request: PreparedRequest, into deliver: BodySink) async throws -> RawResponse {
        var response = try await send(request)
        if (200..<300).contains(response.status) {
            try response.body.withUnsafeBytes { try deliver($0) }
            response.body = Data()
        }
        return response
    }
}

/// Takes a streamed body's bytes, in order, as they arrive; valid only during the call.
public typealias BodySink = (UnsafeRawBufferPointer) throws -> Void

/// Told, as a request's body goes out, how many of its bytes are sent and how many there are.
public typealias UploadProgress = @Sendable (_ sent: Int, _ total: Int) -> Void

/// Why a transport could not exchange a request, as a short phrase ("Connection refused"),
/// the same whichever transport failed.
struct TransportFailure: Error, Sendable, Equatable {
    var reason: String

    static let refused = TransportFailure(reason: "Connection refused")
    static let timedOut = TransportFailure(reason: "no answer within the time limit")
    static let unknownHost = TransportFailure(reason: "unknown host")
    static let closed = TransportFailure(reason: "the connection closed before the answer was complete")
    static let invalid = TransportFailure(reason: "the answer was not valid HTTP")
}
