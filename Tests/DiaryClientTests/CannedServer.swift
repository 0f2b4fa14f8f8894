import Foundation
@testable import DiaryClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket on 127.0.0.1 that answers one connection with canned bytes, so that a
/// transport meets framings and breakages a real server never sends.
final class CannedServer: @unchecked Sendable {
    /// How the answer goes out.
    enum Answer {
        /// These pieces, each sent once the client has read all of the one before (so they arrive
        /// in separate reads), then a close.
        case pieces([String])
        /// Nothing at all, and the connection held open until the server is released.
        case silence
    }

    let port: Int
    private let listener: Int32
    private let done = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var received: [UInt8] = []
    private var problem: String?

    /// - Parameter readingRequest: false answers at once, for a client whose request never ends in a blank line (TLS).
    init(_ answer: Answer, readingRequest: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw CannedServerError(message: "cannot listen: \(String(cString: strerror(errno)))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve(answer, readingRequest: readingRequest) }
        thread.start()
    }

    deinit {
        release.signal()
        close(listener)
    }

    /// The request as the server read it: head and as much body as `Content-Length` announced.
    var request: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits until the answer was sent and the connection closed (or held, for `.silence`), at
    /// most 30 s; returns what went wrong on the server's side, or nil when nothing did.
    func waitUntilDone() -> String? {
        guard done.wait(timeout: .now() + 30) == .success else {
            return "the canned server did not get a connection, or did not send its answer, within 30 s"
        }
        done.signal()  // for the next caller
        lock.lock()
        defer { lock.unlock() }
        return problem
    }

    private func serve(_ answer: Answer, readingRequest: Bool) {
        var client = sockaddr_in()
        var clientLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        let connection = withUnsafeMutablePointer(to: &client) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &clientLength) }
        }
        guard connection >= 0 else {
            done.signal()
            return
        }
        if readingRequest { readRequest(connection) }
        switch answer {
        case .pieces(let pieces):
            let clientPort = Int(UInt16(bigEndian: client.sin_port))
            for (index, piece) in pieces.enumerated() {
                if index > 0, let late = waitUntilClientRead(clientPort: clientPort, piece: index) {
                    lock.lock()
                    problem = late
                    lock.unlock()
                }
                let bytes = Array(piece.utf8)
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            close(connection)
            done.signal()
        case .silence:
            done.signal()
            release.wait()
            close(connection)
        }
    }

    /// Waits until the client's socket (port `clientPort` to this server) holds no unread byte,
    /// as the kernel reports it in /proc/net/tcp (its rx_queue), or is gone: the client has read
    /// everything sent so far. Polls for at most 10 s; returns what went wrong, or nil.
    private func waitUntilClientRead(clientPort: Int, piece: Int) -> String? {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            guard let unread = Self.unreadBytes(localPort: clientPort, remotePort: port) else {
                return "cannot read /proc/net/tcp to pace the pieces"
            }
            if unread == 0 { return nil }
            guard ContinuousClock.now < deadline else {
                return "the client left \(unread) bytes unread for 10 s before piece \(piece + 1)"
            }
            usleep(1_000)
        }
    }

    /// The bytes waiting unread in the loopback socket from `localPort` to `remotePort`; 0 when
    /// there is no such socket (any more), nil when the table cannot be read.
    static func unreadBytes(localPort: Int, remotePort: Int) -> Int? {
        guard let table = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return nil }
        defer { try? table.close() }
        let text = String(decoding: table.readDataToEndOfFile(), as: UTF8.self)
        // "sl local_address rem_address st tx_queue:rx_queue ...", addresses as hex IP:port.
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4 else { continue }
            func port(_ address: Substring) -> Int? { address.split(separator: ":").last.flatMap { Int($0, radix: 16) } }
            guard port(fields[1]) == localPort, port(fields[2]) == remotePort else { continue }
            return fields[4].split(separator: ":").last.flatMap { Int($0, radix: 16) } ?? 0
        }
        return 0
    }

    /// Reads up to the blank line, then the body `Content-Length` announces.
    private func readRequest(_ connection: Int32) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func more() -> Bool {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            bytes += chunk[..<count]
            return true
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            guard more() else { break }
            headEnd = bytes.indices.dropLast(3).first { Array(bytes[$0..<$0 + 4]) == separator }.map { $0 + 4 }
        }
        if let headEnd {
            let head = String(decoding: bytes[..<headEnd], as: UTF8.self).lowercased()
            let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            while bytes.count < headEnd + length, more() {}
        }
        lock.lock()
        received = bytes
        lock.unlock()
    }
}

struct CannedServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A port on 127.0.0.1 that nothing listens on: bound to get a free number, then closed.
func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The phrase a transport failed with, or nil when it answered.
func failureReason(_ exchange: () async throws(TransportFailure) -> RawResponse) async -> String? {
    do {
        _ = try await exchange()
        return nil
    } catch {
        return error.reason
    }
}
