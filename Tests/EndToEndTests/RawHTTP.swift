import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response read off a socket byte by byte, as a client that trusts nothing would.
struct RawResponse {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    /// Whether the server closed the connection after this response.
    var closed: Bool

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// One TCP connection to 127.0.0.1 that sends raw bytes and parses raw HTTP/1.1 responses.
final class RawConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var eof = false

    init(port: Int, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw RawHTTPError(message: "connect failed: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawHTTPError(message: "send failed: \(String(cString: strerror(errno)))") }
            offset += n
        }
    }

    /// Reads one response; a HEAD response or a 204/304 has no body whatever its Content-Length says.
    func readResponse(head: Bool = false) throws -> RawResponse {
        let headerEnd = try readUntil([13, 10, 13, 10])
        let headText = String(decoding: buffer[..<headerEnd], as: UTF8.self)
        buffer.removeFirst(headerEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError(message: "bad status line: \(headText)") }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(status: status, headers: headers, body: [], closed: false)
        let length = head || status == 204 || status == 304 ? 0 : Int(response.header("Content-Length") ?? "") ?? -1
        if length >= 0 {
            while buffer.count < length { guard try fill() else { throw RawHTTPError(message: "body cut short") } }
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        if response.header("Connection")?.lowercased() == "close" {
            while try fill() {}
            response.closed = eof
        }
        return response
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        while true {
            if buffer.count >= marker.count {
                for i in 0...(buffer.count - marker.count) where Array(buffer[i..<i + marker.count]) == marker { return i }
            }
            guard try fill() else { throw RawHTTPError(message: "connection closed before the headers ended") }
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        if eof { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[..<n])
            return true
        }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw RawHTTPError(message: "timed out waiting for the server") }
        eof = true
        return false
    }
}

struct RawHTTPError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension ServerProcess {
    /// Sends one request on a new connection and reads its response.
    func raw(_ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil) throws -> RawResponse {
        let connection = try RawConnection(port: port)
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        try connection.send(text)
        return try connection.readResponse(head: method == "HEAD")
    }
}
