import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
/// The seam exists so that a lighter transport (raw sockets) can replace `URLSession`
/// without touching request building, decoding or errors.
protocol HTTPTransport: Sendable {
    func send(_ request: PreparedRequest) async throws(TransportFailure) -> RawResponse
}

/// Why a transport could not exchange a request, as a short phrase ("Connection refused").
struct TransportFailure: Error, Sendable, Equatable {
    var reason: String
}

// MARK: - URLSession

/// `HTTPTransport` on `URLSession` (libcurl through FoundationNetworking on Linux).
struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    init(timeout: TimeInterval = 30) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration)
    }

    func send(_ request: PreparedRequest) async throws(TransportFailure) -> RawResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body

        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch {
            throw TransportFailure(reason: Self.reason(for: error))
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportFailure(reason: "the answer was not HTTP")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
        }
        return RawResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// A short phrase for a `URLSession` failure; its own descriptions are long and vary by platform.
    static func reason(for error: any Error) -> String {
        guard let urlError = error as? URLError else {
            return (error as NSError).localizedDescription
        }
        switch urlError.code {
        case .cannotConnectToHost: return "Connection refused"
        case .timedOut: return "no answer within the time limit"
        case .cannotFindHost, .dnsLookupFailed: return "unknown host"
        case .networkConnectionLost: return "the connection closed before the answer was complete"
        case .notConnectedToInternet: return "no network connection"
        case .badURL, .unsupportedURL: return "not an http:// or https:// URL"
        case .badServerResponse: return "the answer was not valid HTTP"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return "the TLS connection failed"
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return "too many or broken redirects"
        case .cancelled: return "cancelled"
        default:
            return "network error \(urlError.code.rawValue)"
        }
    }
}
