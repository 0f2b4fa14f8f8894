import Glibc
import HTTPCore
import HTTPTypes
import Synchronization
import Testing
@testable import MicroHTTPDServer

/// A large kept body goes out of a sealed memory file (`KeptFile`, sent with `sendfile`), made
/// once for all the responses that share it and closed when the body is let go.
@Suite("Kept bodies sent from a memory file", .serialized)
struct KeptFileTests {
    /// Answers `/kept` with the one kept response it holds (as the response cache does), `/small`
    /// with a kept body under `KeptFile.minimumSize`; `/drop` lets the kept response go.
    final class KeptResponder: HTTPResponder {
        let large: [UInt8]
        private let kept: Mutex<Response?>
        private let small: Response

        init(size: Int) {
            var generator = SystemRandomNumberGenerator()
            large = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let headers = HTTPFields(fields: [("Content-Type", "image/jpeg"), ("ETag", "\"kept\"")])
            kept = Mutex(Response(status: 200, headers: headers, body: large).keepingBody())
            small = Response(status: 200, headers: headers, body: Array("small and kept".utf8)).keepingBody()
        }

        func respond(to request: Request) -> Response {
            switch request.path {
            case "/kept": kept.withLock { $0 } ?? Response(status: 404)
            case "/small": small
            case "/drop": kept.withLock { $0 = nil; return Response(status: 204) }
            default: Response(status: 404)
            }
        }

        func respond(to error: HTTPRequestError, request: Request) -> Response {
            Response(status: 400)
        }
    }

    @Test func aKeptBodyIsSentWholeAgainAndAgainAndItsHeadHasItsLength() throws {
        let responder = KeptResponder(size: 300 * 1024)
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: responder)
        try server.start()
        defer { server.shutdown() }
        let connection = try RawConnection(port: server.port)
        for _ in 0..<3 {
            try connection.send("GET /kept HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "image/jpeg")
            #expect(response.header("ETag") == "\"kept\"")
            #expect(response.values("Content-Length") == [String(responder.large.count)])
            #expect(response.body == responder.large)
        }
        try connection.send("HEAD /kept HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try connection.readResponse(bodyless: true)
        #expect(head.values("Content-Length") == [String(responder.large.count)])
        // Had HEAD sent the file, its bytes would now be read as the next status line.
        try connection.send("GET /small HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try connection.readResponse().text == "small and kept")
    }

    @Test func connectionsAtOnceEachGetTheWholeBody() throws {
        let responder = KeptResponder(size: 1024 * 1024)
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: responder)
        try server.start()
        defer { server.shutdown() }
        // Each connection asks twice before reading: the second answer waits behind the first,
        // which the socket cannot take at once, so several sends of one file interleave.
        let connections = try (0..<8).map { _ in try RawConnection(port: server.port) }
        for connection in connections {
            try connection.send("GET /kept HTTP/1.1\r\nHost: h\r\n\r\nGET /kept HTTP/1.1\r\nHost: h\r\n\r\n")
        }
        for connection in connections {
            #expect(try connection.readResponse().body == responder.large)
            #expect(try connection.readResponse().body == responder.large)
        }
    }

    @Test func oneFileServesEveryResponseAndClosesWhenTheBodyIsLetGo() throws {
        let responder = KeptResponder(size: 200 * 1024)
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: responder)
        try server.start()
        defer { server.shutdown() }
        #expect(keptFiles() == 0)
        let connection = try RawConnection(port: server.port)
        for _ in 0..<5 {
            try connection.send("GET /kept HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try connection.readResponse().body == responder.large)
        }
        // libmicrohttpd closes each response's own descriptor once that response is done.
        #expect(eventually { keptFiles() == 1 }, "one file for all five answers, found \(keptFiles())")
        try connection.send("GET /drop HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try connection.readResponse().status == 204)
        #expect(eventually { keptFiles() == 0 }, "the file outlived its body: \(keptFiles()) left")
    }

    @Test func aSmallKeptBodyMakesNoFile() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: KeptResponder(size: 1))
        try server.start()
        defer { server.shutdown() }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /small HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try connection.readResponse().text == "small and kept")
        #expect(keptFiles() == 0)
    }
}

/// The memory files of kept bodies this process holds open (`/proc/self/fd`), by their name.
private func keptFiles() -> Int {
    guard let folder = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(folder) }
    var count = 0
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var target = [CChar](repeating: 0, count: 512)
        let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
        if length > 0, String(cString: target).hasPrefix("/memfd:diary-kept-answer") { count += 1 }
    }
    return count
}
