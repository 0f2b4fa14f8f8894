import Glibc

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One parsed HTTP response, kept as bytes so tests assert exactly what went over the wire.
struct RawResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    func header(_ name: String) -> String? { values(name).first }
}

/// A blocking loopback TCP connection with a receive timeout, speaking raw HTTP/1.1: the tests
/// must be able to send what no well-behaved client would (duplicate lengths, smuggled requests).
final class RawConnection {
    let descriptor: Int32
    private let timeoutSeconds: Int
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1; throws with `errno` in the message (ECONNREFUSED after shutdown).
    /// `timeoutSeconds` bounds each wait for bytes: an answer that comes returns at once, so the
    /// default is generous for a loaded machine; `isClosedByServer` waits all of it when the
    /// connection stays open.
    init(port: Int, timeoutSeconds: Int = 30) throws {
        self.timeoutSeconds = timeoutSeconds
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        setReceiveTimeout(timeoutSeconds)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 {
            let code = errno
            close(descriptor)
            throw ConnectError(code: code)
        }
    }

    struct ConnectError: Error {
        var code: Int32
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            // MSG_NOSIGNAL: a server that hung up early must fail the test, not kill it with SIGPIPE.
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw TestFailure("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Reads one response; for a HEAD request pass `bodyless` since its Content-Length has no body.
    func readResponse(bodyless: Bool = false) throws -> RawResponse {
        var headEnd = try waitForHeadEnd()
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        headEnd += 4
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw TestFailure("bad status line in \(head)")
        }
        let headers = lines.map { line -> (name: String, value: String) in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            let value = colon == line.endIndex ? "" : line[line.index(after: colon)...].drop { $0 == " " }
            return (String(line[..<colon]), String(value))
        }
        var response = RawResponse(status: status, headers: headers, body: [])
        buffer.removeFirst(headEnd)
        if bodyless || status == 204 || status == 304 {
            return response
        }
        guard let lengthText = response.header("Content-Length"), let length = Int(lengthText) else {
            throw TestFailure("response without Content-Length: \(head)")
        }
        while buffer.count < length {
            guard try receive() else { throw TestFailure("connection closed after \(buffer.count) of \(length) body bytes") }
        }
        response.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return response
    }

    /// One response, or nil when the server closed the connection without sending a single byte
    /// of one; throws if it sent part of one, or nothing within the timeout.
    func readResponseUnlessClosed() throws -> RawResponse? {
        if buffer.isEmpty {
            guard try receive() else { return nil }
        }
        return try readResponse()
    }

    /// True when the server closed the connection (end of stream or reset), false when it stayed
    /// open until the receive timeout (or `seconds`, when given); throws if more bytes arrive instead.
    func isClosedByServer(waitingAtMost seconds: Int? = nil) throws -> Bool {
        guard buffer.isEmpty else { throw TestFailure("unexpected bytes: \(String(decoding: buffer, as: UTF8.self))") }
        if let seconds { setReceiveTimeout(seconds) }
        defer { if seconds != nil { setReceiveTimeout(timeoutSeconds) } }
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        if count == 0 { return true }
        if count < 0 {
            if errno == ECONNRESET { return true }
            if errno == EAGAIN || errno == EWOULDBLOCK { return false }
            throw TestFailure("recv: \(String(cString: strerror(errno)))")
        }
        throw TestFailure("unexpected byte \(byte) after the response")
    }

    private func setReceiveTimeout(_ seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    private func waitForHeadEnd() throws -> Int {
        let marker: [UInt8] = [13, 10, 13, 10]
        var searchFrom = 0
        while true {
            if buffer.count >= 4 {
                for index in searchFrom...(buffer.count - 4) where buffer[index..<index + 4].elementsEqual(marker) {
                    return index
                }
                searchFrom = buffer.count - 3
            }
            guard try receive() else { throw TestFailure("connection closed before a full response head (\(buffer.count) bytes)") }
        }
    }

    /// Appends what arrived; false at end of stream, throws on timeout or error.
    private func receive() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        if count < 0 {
            if errno == ECONNRESET { return false }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw TestFailure("nothing received within \(timeoutSeconds) s") }
            throw TestFailure("recv: \(String(cString: strerror(errno)))")
        }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}
