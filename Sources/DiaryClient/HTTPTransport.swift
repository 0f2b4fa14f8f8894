import Foundation
// No FoundationNetworking here, nor anywhere in the client: linking it alone made every run of
// `diary` load libcurl and its libraries (see `CurlTransport`).

// MARK: - Request and response values

/// A request ready to go on the wire: what `DiaryClient` builds from an endpoint.
public struct PreparedRequest: Sendable, Equatable {
    public var method: String
    public var url: URL
    /// Header names as sent (`Accept`, `Authorization`, `Content-Type`).
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// A server's answer as received, before any decoding.
public struct RawResponse: Sendable, Equatable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// The value of a header, whatever the case of `name`.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The media type of `Content-Type` without its parameters, in lower case.
    public var mediaType: String? {
        header("Content-Type").map { value in
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
}

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

extension PreparedRequest {
    /// The header fields by name, each checked: a line break in a value (a pasted token) would
    /// start a header of its own on the wire, or a line of its own in curl's config.
    func checkedHeaders() throws(TransportFailure) -> [(name: String, value: String)] {
        try headers.sorted { $0.key < $1.key }.map { (name, value) throws(TransportFailure) in
            guard !name.isEmpty, !(name + value).unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw TransportFailure(reason: "the header \(name) contains a line break")
            }
            return (name, value)
        }
    }
}
