@testable import DiaryClient
import Foundation
import HTTPTypes
import Testing

/// `CurlTransport` runs the real curl. It carries https://, but curl speaks plain http as well,
/// so the canned answers of `SocketTransportTests` check it without a certificate.
@Suite struct CurlTransportTests {
    private func send(_ request: PreparedRequest, timeout: Double = 5) async throws(TransportFailure) -> RawResponse {
        try await CurlTransport(timeout: timeout).send(request)
    }

    private func get(_ server: CannedServer, scheme: String = "http", timeout: Double = 5) async throws(TransportFailure) -> RawResponse {
        defer { #expect(server.waitUntilDone() == nil) }
        return try await send(PreparedRequest(method: .get, url: URL(string: "\(scheme)://127.0.0.1:\(server.port)/api/entries")!), timeout: timeout)
    }

    private func failure(_ server: CannedServer, scheme: String = "http", timeout: Double = 5) async -> String? {
        await failureReason { () async throws(TransportFailure) in try await get(server, scheme: scheme, timeout: timeout) }
    }

    @Test func aChunkedAnswerArrivesWholeWithItsHeaders() async throws {
        let server = try CannedServer(.pieces([
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Total-Count: 3\r\n\r\n5\r\nhello\r\n",
            "7\r\n, world\r\n0\r\n\r\n",
        ]))
        let response = try await get(server)
        #expect(response.status == 200)
        #expect(response.header("X-Total-Count") == "3")
        #expect(String(decoding: response.body, as: UTF8.self) == "hello, world")
    }

    @Test func anErrorStatusIsAnAnswerNotAFailure() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\nContent-Length: 2\r\n\r\n{}"]))
        let response = try await get(server)
        #expect(response.status == 404)
        #expect(response.mediaType == "application/problem+json")
        #expect(response.body == Data("{}".utf8))
    }

    @Test func headersAndBodyGoThroughTheConfigIntact() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"]))
        let body = Data(#"{"title":"a \"quoted\" back\\slash","body":"紅葉"}"#.utf8)
        let url = URL(string: "http://127.0.0.1:\(server.port)/api/entries?q=%E7%B4%85")!
        let request = PreparedRequest(method: .post, url: url, headerFields: [
            .authorization: "Bearer t0ken", .contentType: "application/json", .ifMatch: #""abc\"d""#,
        ], body: body)
        let response = try await send(request)
        #expect(server.waitUntilDone() == nil)
        #expect(response.status == 201)
        let lines = server.request.components(separatedBy: "\r\n")
        #expect(lines.first == "POST /api/entries?q=%E7%B4%85 HTTP/1.1")
        #expect(lines.contains("Authorization: Bearer t0ken"))
        #expect(lines.contains(#"If-Match: "abc\"d""#))
        #expect(!lines.contains { $0.lowercased().hasPrefix("expect:") })
        #expect(server.request.hasSuffix("\r\n\r\n" + String(decoding: body, as: UTF8.self)))
    }

    @Test func theTokenGoesInTheConfigNotInCurlsArguments() throws {
        let request = PreparedRequest(method: .get, url: URL(string: "https://diary.example/api/me")!, headerFields: [.authorization: "Bearer secret"])
        let config = try CurlTransport.config(for: request, bodyFile: nil)
        #expect(config.hasPrefix(#"url = "https://diary.example/api/me""#))
        #expect(config.contains(#"header = "Authorization: Bearer secret""#))
        #expect(!CurlTransport.arguments(timeout: 30).joined().contains("secret"))
        #expect(CurlTransport.arguments(timeout: 30).first == "-q")
        #expect(CurlTransport.quoted(#"a "b" \c"#) == #""a \"b\" \\c""#)
    }

    @Test func aRefusedPortIsConnectionRefused() async throws {
        let url = URL(string: "http://127.0.0.1:\(closedPort())/api/health")!
        await #expect(throws: TransportFailure(reason: "Connection refused")) {
            try await send(PreparedRequest(method: .get, url: url))
        }
    }

    @Test func aTruncatedAnswerIsSaidToBeIncomplete() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a little"]))
        #expect(await failure(server) == "the connection closed before the answer was complete")
    }

    @Test func garbageIsNotValidHTTP() async throws {
        let server = try CannedServer(.pieces(["hello there\r\n\r\n"]))
        #expect(await failure(server) == "the answer was not valid HTTP")
    }

    @Test func aSilentServerRunsIntoTheTimeLimit() async throws {
        let server = try CannedServer(.silence)
        #expect(await failure(server, timeout: 1) == "no answer within the time limit")
    }

    @Test func httpsToAPlainServerIsAFailedTLSConnection() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"]), readingRequest: false)
        #expect(await failure(server, scheme: "https") == "the TLS connection failed")
    }

    @Test func aMissingCurlIsSaidSo() async throws {
        let request = PreparedRequest(method: .get, url: URL(string: "https://diary.example/api/health")!)
        await #expect(throws: TransportFailure(reason: "cannot run /nonexistent/curl")) {
            try await CurlTransport(executable: "/nonexistent/curl").send(request)
        }
    }
}
