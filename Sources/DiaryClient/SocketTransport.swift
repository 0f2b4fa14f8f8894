import Foundation
import HTTPTypes
import TCPSockets

/// `HTTPTransport` for `http://` URLs on a plain POSIX socket: one HTTP/1.1 exchange per
/// connection (`Connection: close`).
///
/// It exists because a command-line run makes one request, and loading URLSession (libcurl and
/// its thirty libraries) cost more than the request itself. It blocks the calling thread while
/// it waits, which is fine for the CLI's one request at a time.
struct SocketTransport: HTTPTransport {
    /// Seconds without progress (connecting, sending or receiving) before giving up; like
    /// the `timeoutIntervalForRequest` the client had with URLSession: an idle limit, not a total one.
    var timeout: Double = 30

    /// How much is sent between two reports of progress: a bar redrawn every 256 KiB moves
    /// smoothly and costs nothing next to the bytes.
    static let progressStep = 256 * 1024

    func send(_ request: PreparedRequest) async throws(TransportFailure) -> RawResponse {
        try exchange(request)
    }

    func send(_ request: PreparedRequest, progress: @escaping UploadProgress) async throws(TransportFailure) -> RawResponse {
        try exchange(request, progress: progress)
    }

    func receive(_ request: PreparedRequest, into deliver: BodySink) async throws -> RawResponse {
        try exchange(request) { socket throws in try Self.readResponse(from: socket, method: request.head.method, deliver: deliver) }
    }

    /// The blocking exchange behind `send`.
    func exchange(_ request: PreparedRequest, progress: UploadProgress? = nil) throws(TransportFailure) -> RawResponse {
        do {
            return try exchange(request, progress: progress) { socket throws in
                try Self.readResponse(from: socket, method: request.head.method)
            }
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            // Only a `BodySink` throws other errors, and collecting the body has none.
            throw TransportFailure(reason: "\(error)")
        }
    }

    /// Connects, sends `request` and lets `read` take the answer off the socket.
    private func exchange(_ request: PreparedRequest, progress: UploadProgress? = nil,
                          read: (ClientSocket) throws -> RawResponse) throws -> RawResponse {
        guard let url = request.url, let address = Address(url) else {
            throw TransportFailure(reason: "not an http:// URL")
        }
        let bytes = Self.encode(request, address: address)
        let socket = try Self.mapping { () throws(ClientSocket.Failure) in
            try ClientSocket.connect(host: address.host, port: address.port, timeout: timeout)
        }
        defer { socket.close() }
        do {
            try Self.mapping { () throws(ClientSocket.Failure) in
                try Self.send(bytes, bodyCount: request.body?.count ?? 0, on: socket, progress: progress)
            }
        } catch {
            // A server may answer and close before reading all of a request (413 on a large
            // body); its answer is still the better report, when it is there and whole.
            if let answer = try? Self.readResponse(from: socket, method: request.head.method) { return answer }
            throw error
        }
        return try read(socket)
    }

    // MARK: - Request

    /// Sends the request's bytes, in steps that report the body's progress when asked to.
    static func send(_ bytes: [UInt8], bodyCount: Int, on socket: ClientSocket, progress: UploadProgress?) throws(ClientSocket.Failure) {
        guard let progress else { return try socket.sendAll(bytes) }
        let headCount = bytes.count - bodyCount
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + progressStep, bytes.count)
            try socket.sendAll(Array(bytes[offset..<end]))
            offset = end
            progress(max(0, offset - headCount), bodyCount)
        }
    }

    /// The request's bytes on the wire: request line, headers, blank line, body.
    static func encode(_ request: PreparedRequest, address: Address) -> [UInt8] {
        var head = "\(request.head.method.rawValue) \(address.target) HTTP/1.1\r\nHost: \(address.hostHeader)\r\nConnection: close\r\n"
        // Header values hold no line break: `HTTPField` makes one a space.
        for field in request.head.headerFields {
            guard field.name.canonicalName != "host", field.name != .connection, field.name != .contentLength else { continue }
            head += "\(field.name.rawName): \(field.value)\r\n"
        }
        let body = request.body ?? Data()
        if request.body != nil || [.post, .put, .patch].contains(request.head.method) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    // MARK: - Response

    /// Reads one response as RFC 9112 frames it, its body kept whole.
    static func readResponse(from socket: ClientSocket, method: HTTPRequest.Method) throws(TransportFailure) -> RawResponse {
        var reader = Reader(socket: socket)
        let head = try readFinalHead(&reader)
        var body: [UInt8] = []
        do {
            try readBody(&reader, head: head, method: method) { body.append(contentsOf: $0) }
        } catch let failure as TransportFailure {
            throw failure
        } catch {
            throw TransportFailure(reason: "\(error)")  // appending throws nothing
        }
        return RawResponse(head: head, body: Data(body))
    }

    /// Reads one response, a 2xx answer's body handed to `deliver` as it arrives (see
    /// `HTTPTransport.receive`), any other kept whole.
    static func readResponse(from socket: ClientSocket, method: HTTPRequest.Method, deliver: BodySink) throws -> RawResponse {
        var reader = Reader(socket: socket)
        let head = try readFinalHead(&reader)
        guard (200..<300).contains(head.status.code) else {
            var body: [UInt8] = []
            try readBody(&reader, head: head, method: method) { body.append(contentsOf: $0) }
            return RawResponse(head: head, body: Data(body))
        }
        try readBody(&reader, head: head, method: method, deliver: deliver)
        return RawResponse(head: head)
    }

    /// The body after `head`, as RFC 9112 frames it: none for HEAD, 1xx, 204 and 304; chunked
    /// when `Transfer-Encoding` ends in chunked; else `Content-Length`; else up to the close.
    private static func readBody(_ reader: inout Reader, head: HTTPResponse, method: HTTPRequest.Method, deliver: BodySink) throws {
        let headers = head.headerFields
        let status = head.status.code
        if method == .head || status < 200 || status == 204 || status == 304 {
            return
        } else if let codings = headers[.transferEncoding] {
            let last = codings.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if last == "chunked" { try readChunked(&reader, deliver: deliver) } else { try reader.forwardToEnd(to: deliver) }
        } else if let length = headers[.contentLength] {
            // Duplicates are joined with ", ": acceptable only when they all agree.
            let values = Set(length.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let count = Int(text) else {
                throw TransportFailure.invalid
            }
            try reader.forward(count: count, to: deliver)
        } else {
            try reader.forwardToEnd(to: deliver)
        }
    }

    /// The head of the final answer, past any interim 1xx ones (`100 Continue`).
    static func readFinalHead(_ reader: inout Reader) throws(TransportFailure) -> HTTPResponse {
        var head = try readHead(&reader)
        while (100..<200).contains(head.status.code) && head.status.code != 101 {
            head = try readHead(&reader)
        }
        return head
    }

    private static func readHead(_ reader: inout Reader) throws(TransportFailure) -> HTTPResponse {
        let statusLine = try reader.readLine()
        // "HTTP/1.1 200 OK": version, a space, three digits, then a space and a reason or nothing.
        let bytes = Array(statusLine.utf8)
        guard bytes.count >= 12, statusLine.hasPrefix("HTTP/1."), (48...57).contains(bytes[7]), bytes[8] == 32,
              bytes[9...11].allSatisfy({ $0 >= 48 && $0 <= 57 }), bytes.count == 12 || bytes[12] == 32,
              let status = Int(String(decoding: bytes[9...11], as: UTF8.self)), status >= 100
        else { throw TransportFailure.invalid }
        var headers = HTTPFields()
        var total = statusLine.utf8.count
        while true {
            let line = try reader.readLine()
            if line.isEmpty { break }
            total += line.utf8.count
            guard total <= Reader.maxHead, let colon = line.firstIndex(of: ":") else { throw TransportFailure.invalid }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else { throw TransportFailure.invalid }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            // A name that is not a token names no field anyone reads: it is left out.
            guard let fieldName = HTTPField.Name(String(name)) else { continue }
            headers.append(HTTPField(name: fieldName, value: value))
        }
        return HTTPResponse(status: HTTPResponse.Status(code: status), headerFields: headers)
    }

    private static func readChunked(_ reader: inout Reader, deliver: BodySink) throws {
        while true {
            let line = try reader.readLine()
            let sizeText = line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
            guard !sizeText.isEmpty, sizeText.count <= 15, sizeText.allSatisfy(\.isHexDigit), let size = Int(sizeText, radix: 16) else {
                throw TransportFailure.invalid
            }
            if size == 0 { break }
            try reader.forward(count: size, to: deliver)
            guard try reader.readLine().isEmpty else { throw TransportFailure.invalid }
        }
        // Trailer fields, up to the blank line; a close right after the last chunk loses nothing.
        for _ in 0..<100 {
            guard let line = try? reader.readLine(), !line.isEmpty else { break }
        }
    }

    // MARK: - Failures

    /// Runs a socket call; its failure becomes the phrase every transport gives for it.
    static func mapping<T>(_ call: () throws(ClientSocket.Failure) -> T) throws(TransportFailure) -> T {
        do {
            return try call()
        } catch {
            switch error.kind {
            case .refused: throw .refused
            case .timedOut: throw .timedOut
            case .unknownHost: throw .unknownHost
            case .closed: throw .closed
            case .other: throw TransportFailure(reason: error.reason)
            }
        }
    }
}

// MARK: - Address

extension SocketTransport {
    /// Where to connect and what to ask for, in the URL's own percent encoding, which goes on
    /// the wire unchanged (`URLComponents`' percent-encoded parts keep it).
    struct Address: Equatable {
        /// Name or address for `getaddrinfo`, without IPv6 brackets.
        var host: String
        var port: UInt16
        /// The authority (`[::1]:8080`), for the `Host` header.
        var hostHeader: String
        /// Path and query: `/api/entries?page=1`.
        var target: String

        init?(_ url: URL) {
            guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: true), parts.scheme?.lowercased() == "http",
                  parts.user == nil, parts.password == nil, let authorityHost = parts.percentEncodedHost, !authorityHost.isEmpty
            else { return nil }
            var port: UInt16 = 80
            if let number = parts.port {
                guard let valid = UInt16(exactly: number), valid > 0 else { return nil }
                port = valid
            }
            let isBracketed = authorityHost.hasPrefix("[") && authorityHost.hasSuffix("]")
            host = isBracketed ? String(authorityHost.dropFirst().dropLast()) : authorityHost
            self.port = port
            hostHeader = parts.port.map { "\(authorityHost):\($0)" } ?? authorityHost
            let path = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
            target = parts.percentEncodedQuery.map { path + "?" + $0 } ?? path
        }
    }
}

// MARK: - Reading

extension SocketTransport {
    /// Buffered reads of lines and counted bytes off a socket, or out of bytes already read.
    struct Reader {
        /// The most a status line and header fields may take, as a guard against a runaway peer.
        static let maxHead = 1 << 20

        let socket: ClientSocket?
        private var buffer: [UInt8] = []
        private var position = 0
        private var atEnd = false

        init(socket: ClientSocket) {
            self.socket = socket
        }

        /// A reader of `bytes` alone: their end is the end of the stream.
        init(bytes: [UInt8]) {
            socket = nil
            buffer = bytes
        }

        /// Receives more bytes; false at the end of the stream.
        private mutating func fill() throws(TransportFailure) -> Bool {
            guard !atEnd, let socket else { return false }
            if position > 0 {
                buffer.removeSubrange(..<position)
                position = 0
            }
            let chunk = try SocketTransport.mapping { () throws(ClientSocket.Failure) in try socket.receive(capacity: 64 * 1024) }
            if chunk.isEmpty {
                atEnd = true
                return false
            }
            buffer += chunk
            return true
        }

        /// One line without its CRLF (or bare LF). The stream ending first is a truncated answer.
        mutating func readLine() throws(TransportFailure) -> String {
            var scanned = 0  // bytes after `position` known to hold no LF; fill keeps the count valid
            while true {
                if let newline = buffer[(position + scanned)...].firstIndex(of: 10) {
                    var end = newline
                    if end > position && buffer[end - 1] == 13 { end -= 1 }
                    let line = String(decoding: buffer[position..<end], as: UTF8.self)
                    position = newline + 1
                    return line
                }
                scanned = buffer.count - position
                guard scanned <= Self.maxHead else { throw TransportFailure.invalid }
                guard try fill() else { throw TransportFailure.closed }
            }
        }

        /// Everything up to the end of the stream.
        mutating func readToEnd() throws(TransportFailure) -> [UInt8] {
            while try fill() {}
            let bytes = Array(buffer[position...])
            position = buffer.count
            return bytes
        }

        /// Exactly `count` bytes, each piece handed to `deliver` as it arrives; fewer before the
        /// end of the stream is a truncated answer.
        mutating func forward(count: Int, to deliver: BodySink) throws {
            var left = count
            while left > 0 {
                if position == buffer.count {
                    guard try fill() else { throw TransportFailure.closed }
                }
                let piece = min(left, buffer.count - position)
                try handOver(piece, to: deliver)
                left -= piece
            }
        }

        /// `readToEnd()`, each piece handed to `deliver` as it arrives rather than gathered.
        mutating func forwardToEnd(to deliver: BodySink) throws {
            repeat {
                if position < buffer.count { try handOver(buffer.count - position, to: deliver) }
            } while try fill()
        }

        private mutating func handOver(_ count: Int, to deliver: BodySink) throws {
            let start = position
            try buffer.withUnsafeBytes { try deliver(UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
            position += count
        }
    }
}
