import DiaryAPI
import Foundation
import HTTPTypes

/// Sends any `APIEndpoint` to a diary server and decodes its response.
///
/// ```swift
/// let client = DiaryClient(serverURL: URL(string: "http://127.0.0.1:8080")!, token: token)
/// let entry = try await client.send(GetEntry(entryID: 42))
/// ```
///
/// Failures are `DiaryClientError`s: `APIError` (the server said no), `ConnectionError`
/// (no answer), `ResponseError` (an answer that is not the promised JSON),
/// `MissingTokenError` and `InvalidRequestError` (found before sending; nothing was sent).
public struct DiaryClient: Sendable {
    /// The server's base URL; endpoint paths are appended to its path.
    public let serverURL: URL
    private let token: String?
    private let transport: any HTTPTransport

    /// - Parameter token: the bearer token, or nil to call only the open endpoints. An empty token counts as none.
    public init(serverURL: URL, token: String?) {
        let transport: any HTTPTransport = serverURL.scheme?.lowercased() == "http" ? SocketTransport() : CurlTransport()
        self.init(serverURL: serverURL, token: token, transport: transport)
    }

    init(serverURL: URL, token: String?, transport: any HTTPTransport) {
        self.serverURL = serverURL
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.transport = transport
    }

    /// Whether requests carry an `Authorization` header.
    public var hasToken: Bool { token != nil }

    // MARK: - Sending

    /// Sends `endpoint` and decodes its response (`NoContent` for a 204).
    /// - Parameter headers: extra header fields, such as `If-Match` or `Idempotency-Key`.
    /// - Parameter progress: told how much of the body is sent as it goes (an upload's bar).
    public func send<E: APIEndpoint>(_ endpoint: E, headers: HTTPFields = [:], progress: UploadProgress? = nil) async throws -> E.Response {
        let response = try await sendRaw(endpoint, headers: headers, progress: progress)
        return try Self.decode(E.self, from: response)
    }

    /// Sends `endpoint` and returns the successful answer's bytes undecoded, for printing
    /// the server's JSON as received or reading its headers. A non-2xx answer still throws `APIError`.
    public func sendRaw<E: APIEndpoint>(_ endpoint: E, headers: HTTPFields = [:], progress: UploadProgress? = nil) async throws -> RawResponse {
        var request = try makeRequest(for: endpoint)
        for field in headers {
            request.head.headerFields[field.name] = field.value
        }
        let response = try await exchange(request, progress: progress)
        guard (200..<300).contains(response.status) else {
            throw APIError(response: response)
        }
        return response
    }

    /// Sends `endpoint` and hands the successful answer's body to `deliver` as it arrives, never
    /// holding it whole (an export is as large as the diary): the answer returned has its head
    /// only. A non-2xx answer still throws `APIError`; `deliver`'s own failure is thrown as it is.
    public func download<E: APIEndpoint>(_ endpoint: E, into deliver: BodySink) async throws -> RawResponse {
        let request = try makeRequest(for: endpoint)
        let response: RawResponse
        do {
            response = try await transport.receive(request, into: deliver)
        } catch let failure as TransportFailure {
            throw ConnectionError(serverURL: serverURL, reason: failure.reason)
        }
        guard (200..<300).contains(response.status) else {
            throw APIError(response: response)
        }
        return response
    }

    /// `request` sent, a failure to reach the server as `ConnectionError`.
    private func exchange(_ request: PreparedRequest, progress: UploadProgress? = nil) async throws -> RawResponse {
        do {
            return if let progress { try await transport.send(request, progress: progress) } else { try await transport.send(request) }
        } catch {
            throw ConnectionError(serverURL: serverURL, reason: error.reason)
        }
    }

    /// The bytes of an image the caller may see (`GET /media/<id>`, with the token when there
    /// is one), or nil when the server answers 404: an image nobody showed the caller.
    public func image(_ id: MediaID) async throws -> RawResponse? {
        let url = Self.url(serverURL: serverURL, target: id.url)
        let response = try await exchange(PreparedRequest(method: .get, url: url, headerFields: try authorization()))
        if response.status == 404 { return nil }
        guard (200..<300).contains(response.status) else { throw APIError(response: response) }
        return response
    }

    // MARK: - Building requests

    /// `Authorization: Bearer` with the token, when there is one.
    private func authorization() throws -> HTTPFields {
        guard let token else { return [:] }
        // A line break in a pasted token would become a space in the field: say so instead.
        guard !token.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw ConnectionError(serverURL: serverURL, reason: "the header Authorization contains a line break")
        }
        return [.authorization: "Bearer \(token)"]
    }

    /// The request `send` would make for `endpoint`: URL, method, headers and JSON body.
    /// Throws `MissingTokenError` or `InvalidRequestError` instead of building a request the server must refuse.
    public func makeRequest<E: APIEndpoint>(for endpoint: E) throws -> PreparedRequest {
        var headers: HTTPFields = [.accept: "application/json"]
        headers.append(contentsOf: try authorization())
        if token == nil && E.access == .token {
            throw MissingTokenError(method: E.method.rawValue, path: endpoint.renderedPath)
        }
        var body: Data?
        if let value = endpoint.body {
            if case .failure(let failure) = value.validated() {
                throw InvalidRequestError(failure.errors)
            }
            if let raw = value as? any RawBody {
                // Sent as it is (an image), with its own type.
                body = Data(raw.rawBytes)
                headers[.contentType] = raw.rawContentType
            } else {
                body = try DiaryJSON.makeEncoder().encode(value)
                headers[.contentType] = "application/json"
            }
        }
        let url = Self.url(serverURL: serverURL, target: endpoint.renderedTarget)
        return PreparedRequest(method: E.method, url: url, headerFields: headers, body: body)
    }

    /// `serverURL` with `target` (an endpoint's percent-encoded path and query) appended to its own path.
    public static func url(serverURL: URL, target: String) -> URL {
        var base = serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + target) ?? serverURL
    }

    // MARK: - Decoding

    /// The typed response in a successful answer: `NoContent` whatever the body, else the JSON body.
    public static func decode<E: APIEndpoint>(_ endpoint: E.Type, from response: RawResponse) throws(ResponseError) -> E.Response {
        if let none = NoContent() as? E.Response {
            return none
        }
        do {
            return try DiaryJSON.makeDecoder().decode(E.Response.self, from: response.body)
        } catch {
            throw ResponseError(
                method: E.method.rawValue, path: E.path.description, status: response.status,
                reason: response.body.isEmpty ? "the body is empty" : Self.describe(error)
            )
        }
    }

    /// A decoding error in a few words: "missing entry_id", "wrong type at entries.0.created".
    static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "the top level" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "wrong type at \(path(context.codingPath))"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "\(context.debugDescription) at \(path(context.codingPath))"
        default:
            return String(describing: error)
        }
    }
}

// MARK: - Descriptions

/// Written out so that printing or dumping a client never shows its token.
extension DiaryClient: CustomStringConvertible, CustomReflectable {
    public var description: String {
        "DiaryClient(\(serverURL.absoluteString), token: \(hasToken ? "set" : "none"))"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["serverURL": serverURL, "hasToken": hasToken])
    }
}

// MARK: - Server address

extension DiaryClient {
    /// The server URL in `text`: `http://host[:port][/path]` or `https://…`; a bare `host:port`
    /// means `http://host:port`. Nil when it is not such a URL.
    public static func serverURL(from text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil, components.user == nil
        else { return nil }
        return components.url
    }
}
