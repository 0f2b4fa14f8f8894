import DiaryAPI
@testable import DiaryClient
import Foundation
import HTTPTypes
import Testing

/// `SocketTransport` against canned answers on a real socket: every framing HTTP/1.1 allows,
/// and the breakages that must become one short reason.
@Suite struct SocketTransportTests {
    private func get(_ server: CannedServer, _ target: String = "/api/entries?page=1", method: String = "GET",
                     timeout: Double = 5) async throws(TransportFailure) -> RawResponse {
        let url = URL(string: "http://127.0.0.1:\(server.port)\(target)")!
        defer { #expect(server.waitUntilDone() == nil) }
        return try await SocketTransport(timeout: timeout).send(PreparedRequest(method: HTTPRequest.Method(method)!, url: url, headerFields: [.accept: "application/json"]))
    }

    private func failure(_ server: CannedServer, method: String = "GET", timeout: Double = 5) async -> String? {
        await failureReason { () async throws(TransportFailure) in try await get(server, method: method, timeout: timeout) }
    }

    // MARK: - Framings

    @Test func contentLengthReadsExactlyThatManyBytes() async throws {
        let server = try CannedServer(.pieces([
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\nX-Total-Count: 3\r\n\r\n{\"a\":",
            "\"b\"}\nEXTRA BYTES",
        ]))
        let response = try await get(server)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"a\":\"b\"}\n")
        #expect(response.header("content-type") == "application/json")
        #expect(response.headerFields[.totalCount] == "3")
    }

    @Test func chunkedBodiesAreJoinedAcrossReadsWithExtensionsAndTrailers() async throws {
        let server = try CannedServer(.pieces([
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-ndjson\r\n\r\n5\r\nhel",
            "lo\r\n7;name=value\r\n, world\r\n",
            "A\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\n",
        ]))
        let response = try await get(server)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello, world0123456789")
    }

    @Test func withoutLengthTheBodyRunsToTheClose() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst ", "and last"]))
        let response = try await get(server)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "first and last")
    }

    @Test func noContentAndHeadAnswersHaveNoBodyWhateverTheirHeadersSay() async throws {
        let noContent = try CannedServer(.pieces(["HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n"]))
        let response = try await get(noContent, method: "DELETE")
        #expect(response.status == 204 && response.body.isEmpty)

        let head = try CannedServer(.pieces(["HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n"]))
        let headResponse = try await get(head, method: "HEAD")
        #expect(headResponse.status == 200 && headResponse.body.isEmpty)
        #expect(headResponse.header("Content-Length") == "500")
    }

    @Test func interimAnswersAreSkippedAndBareLineFeedsAccepted() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\nContent-Length: 2\n\n{}"]))
        let response = try await get(server)
        #expect(response.status == 404)
        #expect(response.body == Data("{}".utf8))
    }

    @Test func repeatedHeadersAreJoinedAndAgreeingLengthsAccepted() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 200 OK\r\nVary: Accept\r\nvary: Authorization\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok"]))
        let response = try await get(server)
        #expect(response.header("Vary") == "Accept, Authorization")
        #expect(response.body == Data("ok".utf8))
    }

    // MARK: - The request on the wire

    @Test func theRequestCarriesHostCloseLengthAndTheTargetAsEncoded() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"]))
        let url = URL(string: "http://127.0.0.1:\(server.port)/api/entries?q=%E7%B4%85%E8%91%89%20x&tag=a")!
        let body = Data(#"{"title":"Kyoto","body":"紅葉"}"#.utf8)
        let request = PreparedRequest(method: .post, url: url, headerFields: [.authorization: "Bearer t0ken", .contentType: "application/json"], body: body)
        let response = try await SocketTransport().send(request)
        #expect(server.waitUntilDone() == nil)
        #expect(response.status == 201)
        let lines = server.request.components(separatedBy: "\r\n")
        #expect(lines.first == "POST /api/entries?q=%E7%B4%85%E8%91%89%20x&tag=a HTTP/1.1")
        #expect(lines.contains("Host: 127.0.0.1:\(server.port)"))
        #expect(lines.contains("Connection: close"))
        #expect(lines.contains("Authorization: Bearer t0ken"))
        #expect(lines.contains("Content-Length: \(body.count)"))
        #expect(server.request.hasSuffix("\r\n\r\n" + #"{"title":"Kyoto","body":"紅葉"}"#))
    }

    @Test func aLineBreakInATokenIsRefusedBeforeAnythingIsSent() async throws {
        let url = URL(string: "http://127.0.0.1:\(closedPort())")!
        let client = DiaryClient(serverURL: url, token: "a\r\nX-Injected: 1", transport: SocketTransport())
        await #expect(throws: ConnectionError(serverURL: url, reason: "the header Authorization contains a line break")) {
            try await client.send(GetCurrentUser())
        }
    }

    @Test func aLineBreakInAHeaderFieldNeverReachesTheWire() throws {
        let url = URL(string: "http://127.0.0.1:8080/api/me")!
        let request = PreparedRequest(method: .get, url: url, headerFields: [.authorization: "Bearer a\r\nX-Injected: 1"])
        let address = try #require(SocketTransport.Address(url))
        let wire = String(decoding: SocketTransport.encode(request, address: address), as: UTF8.self)
        #expect(!wire.contains("\r\nX-Injected"))
        #expect(wire.components(separatedBy: "\r\n").count == 6, "request line, Host, Connection, Authorization, blank line")
    }

    @Test func addressesKeepTheirAuthorityForTheHostHeader() throws {
        let v6 = try #require(SocketTransport.Address(URL(string: "http://[::1]:8080/api/health")!))
        #expect(v6.host == "::1" && v6.port == 8080 && v6.hostHeader == "[::1]:8080" && v6.target == "/api/health")
        let bare = try #require(SocketTransport.Address(URL(string: "http://diary.example?x=1#frag")!))
        #expect(bare.host == "diary.example" && bare.port == 80 && bare.hostHeader == "diary.example" && bare.target == "/?x=1")
        #expect(SocketTransport.Address(URL(string: "https://diary.example/")!) == nil)
        #expect(SocketTransport.Address(URL(string: "http://host:0/")!) == nil)
        #expect(SocketTransport.Address(URL(string: "http://user@host/")!) == nil)
        let escaped = try #require(SocketTransport.Address(URL(string: "http://h/a%2Fb?q=%E4%BA%AC+a%20b&tag=x")!))
        #expect(escaped.target == "/a%2Fb?q=%E4%BA%AC+a%20b&tag=x", "the encoding goes on the wire as written")
    }

    // MARK: - Failures, as short reasons

    @Test func aRefusedPortIsConnectionRefused() async throws {
        let url = URL(string: "http://127.0.0.1:\(closedPort())/api/health")!
        await #expect(throws: TransportFailure(reason: "Connection refused")) {
            try await SocketTransport().send(PreparedRequest(method: .get, url: url))
        }
    }

    @Test func anUnknownHostIsSaidSo() async throws {
        let url = URL(string: "http://no-such-host.invalid/api/health")!
        await #expect(throws: TransportFailure(reason: "unknown host")) {
            try await SocketTransport().send(PreparedRequest(method: .get, url: url))
        }
    }

    @Test func aSilentServerRunsIntoTheTimeLimit() async throws {
        let server = try CannedServer(.silence)
        let started = ContinuousClock.now
        #expect(await failure(server, timeout: 0.3) == "no answer within the time limit")
        // The server stays silent until released, so only the limit ended the wait: the whole
        // 0.3 s of it, and not much more (the bound is 16 times the limit, room for a loaded machine).
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(300) && waited < .seconds(5), "waited \(waited)")
    }

    // MARK: - Streamed bodies

    /// `receive` with a sink that records each piece it is handed.
    private func pieces(_ server: CannedServer, sink: @escaping (Data) throws -> Void = { _ in })
        async throws -> (RawResponse, [Data]) {
        let url = URL(string: "http://127.0.0.1:\(server.port)/api/export")!
        defer { #expect(server.waitUntilDone() == nil) }
        var received: [Data] = []
        let response = try await SocketTransport(timeout: 5).receive(PreparedRequest(method: .get, url: url)) { bytes in
            let piece = Data(bytes)
            try sink(piece)
            received.append(piece)
        }
        return (response, received)
    }

    @Test func aStreamedBodyIsHandedOverAsItArrivesNotGathered() async throws {
        let chunked = try CannedServer(.pieces([
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nfirst\n\r\n",
            "7\r\nsecond\n\r\n",
            "6\r\nthird\n\r\n0\r\n\r\n",
        ]))
        let (response, received) = try await pieces(chunked)
        #expect(response.status == 200 && response.body.isEmpty)
        #expect(received.map { String(decoding: $0, as: UTF8.self) } == ["first\n", "second\n", "third\n"])

        let counted = try CannedServer(.pieces(["HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello", " world"]))
        let (_, countedPieces) = try await pieces(counted)
        #expect(countedPieces.map { String(decoding: $0, as: UTF8.self) } == ["hello", " world"])
    }

    @Test func aRefusalKeepsItsProblemAndTheSinkHearsNothing() async throws {
        let server = try CannedServer(.pieces([
            "HTTP/1.1 403 Forbidden\r\nContent-Type: application/problem+json\r\nContent-Length: 2\r\n\r\n{}",
        ]))
        let (response, received) = try await pieces(server)
        #expect(response.status == 403 && response.body == Data("{}".utf8))
        #expect(received.isEmpty)
    }

    @Test func theSinksOwnFailureStopsTheExchangeAndIsThrownAsItIs() async throws {
        struct DiskFull: Error {}
        let server = try CannedServer(.pieces(["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"]))
        await #expect(throws: DiskFull.self) { _ = try await pieces(server) { _ in throw DiskFull() } }
    }

    @Test func aStreamCutShortIsSaidToBeIncomplete() async throws {
        let server = try CannedServer(.pieces(["HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a little"]))
        await #expect(throws: TransportFailure.closed) { _ = try await pieces(server) }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a little",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n",
        "",
    ])
    func aTruncatedAnswerIsSaidToBeIncomplete(_ answer: String) async throws {
        let server = try CannedServer(.pieces([answer]))
        #expect(await failure(server) == "the connection closed before the answer was complete")
    }

    @Test(arguments: [
        "hello there\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n",
    ])
    func garbageIsNotValidHTTP(_ answer: String) async throws {
        let server = try CannedServer(.pieces([answer]))
        #expect(await failure(server) == "the answer was not valid HTTP")
    }
}
