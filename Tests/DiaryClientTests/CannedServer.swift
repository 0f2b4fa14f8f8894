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
        /// These pieces, with a short pause between them (so they arrive in separate reads), then a close.
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

    /// Waits until the answer was sent and the connection closed (or held, for `.silence`).
    func waitUntilDone() {
        done.wait()
    }

    private func serve(_ answer: Answer, readingRequest: Bool) {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else {
            done.signal()
            return
        }
        if readingRequest { readRequest(connection) }
        switch answer {
        case .pieces(let pieces):
            for (index, piece) in pieces.enumerated() {
                if index > 0 { usleep(20_000) }
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
