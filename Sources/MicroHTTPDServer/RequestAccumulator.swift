import HTTPCore
import HTTPTypes

/// One request's state between libmicrohttpd's calls to the access handler, carried in
/// `*con_cls`: created when the request line arrives, released when the request completes.
final class RequestAccumulator {
    /// The request target exactly as sent, before libmicrohttpd splits off and parses the query.
    let target: String
    /// The method as sent; nil until the head is read, or when it is not a token.
    private(set) var method: HTTPRequest.Method?
    private(set) var headers = HTTPFields()
    /// A header name that is not a token (RFC 9110 §5.1) was sent.
    private var invalidFieldName = false
    private(set) var headersRead = false
    /// The client's IP address as text, read with the head.
    private(set) var clientAddress: String?
    private(set) var body: [UInt8] = []
    /// Set when a body without `Content-Length` grew past the limit; the rest is read and dropped.
    private(set) var bodyTooLarge = false
    private var droppedBytes = 0
    /// Set when the complete request went to the blocking pool; its answer arrives here.
    var pending: PendingAnswer?
    /// The largest body this request may send: the transport's, or the responder's for it
    /// (`HTTPResponder.maxBodySize(for:)`), set once the head is read.
    var maxBodySize = 0

    init(rawTarget: String) {
        target = rawTarget
    }

    /// What was read so far, with an empty body: the request an error response is made for.
    var withoutBody: Request {
        var request = Request(method: method ?? .get, target: target, headers: headers)
        request.clientAddress = clientAddress
        return request
    }

    var complete: Request {
        var request = Request(method: method ?? .get, target: target, headers: headers, body: body)
        request.clientAddress = clientAddress
        return request
    }

    func setHead(method: String, received: ReceivedHead, clientAddress: String?) {
        self.clientAddress = clientAddress
        self.method = HTTPRequest.Method(method)
        headers = received.headers
        invalidFieldName = received.invalidFieldName
        headersRead = true
    }

    /// Why the headers alone already rule the request out, or nil. libmicrohttpd 0.9.75 takes the
    /// first of two `Content-Length`s and reads the rest as a second request, a smuggling hole.
    func refusal(maxBodySize: Int) -> HTTPRequestError? {
        guard method != nil else { return .malformed("The request method is not a token.") }
        if invalidFieldName {
            return .malformed("A header field name holds a character that a field name cannot hold.")
        }
        let lengths = headers[values: .contentLength]
        let encodings = headers[values: .transferEncoding]
        if lengths.count > 1 {
            return .malformed("The request has more than one Content-Length header.")
        }
        if !lengths.isEmpty && !encodings.isEmpty {
            return .malformed("The request has both Content-Length and Transfer-Encoding headers.")
        }
        if !encodings.isEmpty && (encodings.count > 1 || !encodings[0].trimmingSpaces.caseInsensitiveEqualsChunked) {
            return .malformed("The only Transfer-Encoding accepted is a single chunked.")
        }
        if let length = lengths.first?.trimmingSpaces {
            guard !length.isEmpty, length.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return .malformed("The Content-Length header is not a number.")
            }
            // All digits but too long for Int is too large as well.
            if (Int(length) ?? Int.max) > maxBodySize {
                return .bodyTooLarge(limit: maxBodySize)
            }
        }
        return nil
    }

    /// Appends a chunk of body; past the limit the body is dropped and later chunks only counted.
    /// Returns false once the client sent far more than allowed, to close the connection unanswered.
    func append(_ chunk: UnsafeRawBufferPointer, maxBodySize: Int) -> Bool {
        if bodyTooLarge {
            droppedBytes += chunk.count
            // Reading a huge refused body to its end only to say 413 wastes bandwidth: after as
            // much again as the limit (at least 1 MiB) the client gets no answer, just a closed connection.
            return droppedBytes <= max(maxBodySize, 1_048_576)
        }
        if body.count + chunk.count > maxBodySize {
            bodyTooLarge = true
            body = []
            return true
        }
        body.append(contentsOf: chunk)
        return true
    }
}

/// The header fields libmicrohttpd read, gathered by its iterator.
struct ReceivedHead {
    var headers = HTTPFields()
    var invalidFieldName = false
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}

extension Substring {
    fileprivate var caseInsensitiveEqualsChunked: Bool {
        lowercased() == "chunked"
    }
}
