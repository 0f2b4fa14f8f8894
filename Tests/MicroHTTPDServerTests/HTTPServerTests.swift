import Glibc
import HTTPCore
import HTTPTypes
import Synchronization
import Testing
@testable import MicroHTTPDServer
import ProcessControl

@Suite("HTTPServer over a real loopback socket")
struct HTTPServerTests {
    @Test func getEchoesMethodPathAndQuery() throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /hello/world?x=1&y=two HTTP/1.1\r\nHost: test\r\nX-Custom: a value\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "GET /hello/world x=1&y=two")
            #expect(response.header("X-Method") == "GET")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(response.values("Date").count == 1)
        }
    }

    @Test func requestHeadersArriveInOrderWithDuplicates() throws {
        struct HeaderEcho: HTTPResponder {
            func respond(to request: Request) -> Response {
                let text = request.headers.map { "\($0.name.rawName)=\($0.value)" }.joined(separator: "|")
                return Response(status: 200, body: Array(text.utf8))
            }
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: HeaderEcho())
        try server.start()
        defer { server.shutdown() }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET / HTTP/1.1\r\nHost: h\r\nAccept: a\r\nX-Tag: 1\r\nx-tag: 2\r\n\r\n")
        #expect(try connection.readResponse().text == "Host=h|Accept=a|X-Tag=1|x-tag=2")
    }

    @Test func postBodiesAreEchoed() throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: 11\r\n\r\nhello world")
            let small = try connection.readResponse()
            #expect(small.status == 200)
            #expect(small.text == "hello world")

            var generator = SystemRandomNumberGenerator()
            let big = (0..<1_048_576).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try connection.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(big.count)\r\n\r\n")
            try connection.send(big)
            let echoed = try connection.readResponse()
            #expect(echoed.status == 200)
            #expect(echoed.header("X-Body-Length") == "1048576")
            #expect(echoed.body == big)
        }
    }

    @Test func chunkedBodyWithinTheLimitIsAssembled() throws {
        try withServer(maxBodySize: 1000) { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "hello world")
        }
    }

    @Test func bodyOverTheLimitByContentLengthGets413AndCloses() throws {
        try withServer(maxBodySize: 1000) { server, probe in
            let connection = try RawConnection(port: server.port)
            // Only the head is sent: the answer must come before the body, and without 100 Continue.
            try connection.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1001\r\nExpect: 100-continue\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.header("X-Refused") == HTTPRequestError.bodyTooLarge(limit: 1000).reason)
            #expect(response.header("X-Path") == "/upload")
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(try connection.isClosedByServer())
            #expect(probe.calls.load(ordering: .relaxed) == 0)
        }
    }

    @Test func theResponderSetsALargerLimitForOnePathAndItHoldsByContentLengthAndChunked() throws {
        try withServer(maxBodySize: 1000) { server, probe in
            let within = try RawConnection(port: server.port)
            try within.send("POST /large-upload HTTP/1.1\r\nHost: test\r\nContent-Length: 3000\r\n\r\n" + String(repeating: "a", count: 3000))
            let accepted = try within.readResponse()
            #expect(accepted.status == 200 && accepted.body.count == 3000)

            let over = try RawConnection(port: server.port)
            try over.send("POST /large-upload HTTP/1.1\r\nHost: test\r\nContent-Length: 3001\r\n\r\n")
            let refused = try over.readResponse()
            #expect(refused.status == 413 && refused.header("X-Refused") == HTTPRequestError.bodyTooLarge(limit: 3000).reason)
            #expect(try over.isClosedByServer())

            let chunked = try RawConnection(port: server.port)
            try chunked.send("POST /large-upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(repeating: "3e8\r\n" + String(repeating: "c", count: 1000) + "\r\n", count: 4) + "0\r\n\r\n")
            #expect(try chunked.readResponse().status == 413)

            // Other paths keep the transport's limit.
            let other = try RawConnection(port: server.port)
            try other.send("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1001\r\n\r\n")
            #expect(try other.readResponse().status == 413)
            #expect(probe.calls.load(ordering: .relaxed) == 1)
        }
    }

    @Test func bodyAtTheLimitIsAccepted() throws {
        try withServer(maxBodySize: 1000) { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("PUT /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "a", count: 1000))
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.body.count == 1000)
        }
    }

    @Test func chunkedBodyOverTheLimitGets413AndCloses() throws {
        try withServer(maxBodySize: 1000) { server, probe in
            let connection = try RawConnection(port: server.port)
            var request = "POST /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
            for _ in 0..<5 {
                request += "190\r\n" + String(repeating: "b", count: 400) + "\r\n"
            }
            request += "0\r\n\r\n"
            try connection.send(request)
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(try connection.isClosedByServer())
            #expect(probe.calls.load(ordering: .relaxed) == 0)
        }
    }

    @Test func duplicateContentLengthGets400AndTheSmuggledRequestIsNeverServed() throws {
        try withServer { server, probe in
            let connection = try RawConnection(port: server.port)
            let smuggled = "GET /smuggled HTTP/1.1\r\nHost: test\r\n\r\n"
            try connection.send("POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n" + smuggled)
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(response.header("X-Refused") == "The request has more than one Content-Length header.")
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(try connection.isClosedByServer())
            #expect(probe.calls.load(ordering: .relaxed) == 0)
        }
    }

    @Test func contentLengthWithTransferEncodingGets400AndCloses() throws {
        try withServer { server, probe in
            let connection = try RawConnection(port: server.port)
            try connection.send("POST /a HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(response.header("X-Refused") == "The request has both Content-Length and Transfer-Encoding headers.")
            #expect(try connection.isClosedByServer())
            #expect(probe.calls.load(ordering: .relaxed) == 0)
        }
    }

    @Test(arguments: [
        ("/api/a%20b?x=1%262&y", "/api/a%20b", "x=1%262&y"),
        ("/p?a+b=c+d&&e=&f", "/p", "a+b=c+d&&e=&f"),
        ("/%2F/%zz/%C3%A9?q=%E2%82%AC#", "/%2F/%zz/%C3%A9", "q=%E2%82%AC#"),
        ("/no-query", "/no-query", "<none>"),
        ("/empty-query?", "/empty-query", ""),
    ])
    func pathAndQueryArriveRaw(target: String, path: String, query: String) throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET \(target) HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.header("X-Path") == path)
            #expect(response.header("X-Query") == query)
        }
    }

    /// libmicrohttpd 0.9.75 hung without an answer once a query's arguments filled its pool.
    /// 1,000 arguments (6.9 KB) are more than the 16 KiB pool holds split (a header record each), and the query
    /// and its echo in `X-Query` still fit in the pool together.
    @Test func aQueryOfManyArgumentsIsAnswered() throws {
        let query = (0..<1_000).map { "t=\($0)" }.joined(separator: "&")
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /many?\(query) HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.header("X-Query") == query)
        }
    }

    @Test func headGetsTheGetHeadersWithoutABody() throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("HEAD /thing HTTP/1.1\r\nHost: test\r\n\r\n")
            let head = try connection.readResponse(bodyless: true)
            #expect(head.status == 200)
            #expect(head.header("X-Method") == "HEAD")
            #expect(head.values("Content-Length") == [String("HEAD /thing <none>".utf8.count)])
            // Had a body been sent, it would now be read as the next response's status line.
            try connection.send("GET /after HTTP/1.1\r\nHost: test\r\n\r\n")
            let next = try connection.readResponse()
            #expect(next.status == 200)
            #expect(next.text == "GET /after <none>")
        }
    }

    @Test func contentLengthComesFromTheBodyNotTheResponder() throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /wrong-length HTTP/1.1\r\nHost: test\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.values("Content-Length") == ["3"])
            #expect(response.text == "abc")
            try connection.send("GET /empty HTTP/1.1\r\nHost: test\r\n\r\n")
            let empty = try connection.readResponse()
            #expect(empty.status == 204)
            try connection.send("GET /still-open HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try connection.readResponse().text == "GET /still-open <none>")
        }
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /one HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try connection.readResponse().text == "GET /one <none>")
            try connection.send("POST /two HTTP/1.1\r\nHost: test\r\nContent-Length: 3\r\n\r\nabc")
            #expect(try connection.readResponse().text == "abc")
            #expect(try connection.isClosedByServer(waitingAtMost: 1) == false)
        }
    }

    /// A stream that fails half-way closes the connection at once: the client sees an
    /// incomplete chunked body now, not when the idle timeout (10 s here) ends the connection.
    @Test func aStreamThatFailsClosesTheConnectionAtOnce() throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port, timeoutSeconds: 8)
            try connection.send("GET /broken-stream HTTP/1.1\r\nHost: test\r\n\r\n")
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 { received += chunk[..<count]; continue }
                #expect(count == 0 || errno == ECONNRESET, "the connection stayed open: \(String(cString: strerror(errno)))")
                break
            }
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"), "\(text)")
            #expect(text.contains("first\n") && !text.hasSuffix("0\r\n\r\n"), "\(text)")
        }
    }

    @Test func http11WithoutHostIsRefusedAndLeavesNothingInFlight() throws {
        try withServer { server, probe in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /x HTTP/1.1\r\n\r\n")
            #expect(try connection.readResponse().status == 400)
            #expect(probe.calls.load(ordering: .relaxed) == 0)
            #expect(eventually { server.inFlightRequestCount == 0 })
        }
    }

    @Test func clientHangingUpMidBodyLeavesNothingInFlight() throws {
        try withServer { server, probe in
            do {
                let connection = try RawConnection(port: server.port)
                try connection.send("POST /x HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\nonly part")
                #expect(eventually { server.inFlightRequestCount == 1 })
            }
            #expect(eventually { server.inFlightRequestCount == 0 })
            #expect(probe.calls.load(ordering: .relaxed) == 0)
        }
    }

    @Test func shutdownLetsARequestInFlightFinishThenRefusesConnections() throws {
        let probe = EchoResponder.Probe()
        defer { probe.releaseSlow() }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: EchoResponder(probe: probe))
        try server.start()
        let port = server.port
        let connection = try RawConnection(port: port)
        try connection.send("GET /slow HTTP/1.1\r\nHost: test\r\n\r\n")
        try #require(probe.waitForSlowRequest(), "the slow request never reached the responder")

        // nil until shutdown returned; then whether the slow request had finished by then.
        let returned = Mutex<Bool?>(nil)
        let shutdown = TestThread {
            server.shutdown(gracePeriod: .seconds(60))
            returned.withLock { $0 = probe.slowFinished.load(ordering: .acquiring) }
        }
        // The slow request is held in the responder: new connections are refused while it runs, not left waiting.
        #expect(eventually { refusesConnections(port) }, "new connections were not refused while a request was in flight")
        #expect(never(within: 0.5) { returned.withLock { $0 } != nil }, "shutdown returned while a request was in flight")

        probe.releaseSlow()
        // The grace period is 60 s: shutdown returns because the request finished, not at the deadline.
        try #require(shutdown.join(within: 30), "shutdown waited for the deadline instead of the request")
        #expect(returned.withLock { $0 } == true, "shutdown returned before the request in flight finished")

        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "slow done")
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(try connection.isClosedByServer())

        #expect(throws: RawConnection.ConnectError.self) { try RawConnection(port: port) }
        do {
            _ = try RawConnection(port: port)
        } catch let error as RawConnection.ConnectError {
            #expect(error.code == ECONNREFUSED)
        }
        server.shutdown()
        #expect(throws: HTTPServerError.self) { try server.start() }
    }

    /// A write waiting on the disk runs on the blocking pool, its connection suspended: the one
    /// worker thread goes on serving other connections, and the same connection afterwards.
    @Test func aRequestThatMayBlockDoesNotHoldUpTheWorker() throws {
        let probe = EchoResponder.Probe()
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1), responder: EchoResponder(probe: probe))
        try server.start()
        defer { server.shutdown(gracePeriod: .seconds(2)) }
        defer { probe.releaseSlow() }  // before the shutdown, which waits for it
        let writer = try RawConnection(port: server.port)
        try writer.send("POST /slow HTTP/1.1\r\nHost: test\r\nContent-Length: 1\r\n\r\nx")
        try #require(probe.waitForSlowRequest(), "the slow request never reached the responder")
        // The write is held in the responder until released below: had it the worker, this read
        // would get no answer until then, and run into the connection's receive timeout.
        let reader = try RawConnection(port: server.port)
        try reader.send("GET /one HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try reader.readResponse().text == "GET /one <none>", "the read waited for the write")
        #expect(probe.slowFinished.load(ordering: .acquiring) == false)
        // The read is done; the write is still suspended.
        #expect(eventually { server.inFlightRequestCount == 1 })

        probe.releaseSlow()
        let slow = try writer.readResponse()
        #expect(slow.status == 200 && slow.text == "slow done")
        try writer.send("GET /after HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try writer.readResponse().text == "GET /after <none>")
        #expect(try writer.isClosedByServer(waitingAtMost: 1) == false)
    }

    /// Stopping libmicrohttpd with a suspended connection is undefined: shutdown waits for it
    /// even past the grace period.
    @Test func shutdownWaitsForASuspendedRequestPastTheGracePeriod() throws {
        let probe = EchoResponder.Probe()
        defer { probe.releaseSlow() }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1), responder: EchoResponder(probe: probe))
        try server.start()
        let port = server.port
        let connection = try RawConnection(port: port)
        try connection.send("DELETE /slow HTTP/1.1\r\nHost: test\r\n\r\n")
        try #require(probe.waitForSlowRequest(), "the slow request never reached the responder")

        // nil until shutdown returned; then whether the suspended request had finished by then.
        let returned = Mutex<Bool?>(nil)
        let shutdown = TestThread {
            server.shutdown(gracePeriod: .zero)
            returned.withLock { $0 = probe.slowFinished.load(ordering: .acquiring) }
        }
        // Refused connections: shutdown has begun, and its grace period of zero is over.
        #expect(eventually { refusesConnections(port) }, "new connections were not refused after shutdown began")
        #expect(never(within: 0.5) { returned.withLock { $0 } != nil }, "shutdown returned with a request still suspended")

        probe.releaseSlow()
        try #require(shutdown.join(within: 30), "shutdown did not return once the suspended request finished")
        #expect(returned.withLock { $0 } == true, "shutdown returned before the suspended request finished")
        // The resumed connection is usually answered before the stop closes it. Either way it gets
        // nothing but its own whole answer: a part of one, or no end within the timeout, throws.
        switch try connection.readResponseUnlessClosed() {
        case let response?:
            #expect(response.status == 200 && response.text == "slow done")
        case nil:
            break  // closed by the stop before the answer went out, without a byte of anything else
        }
    }

    @Test func anIdleKeepAliveConnectionDoesNotHoldUpShutdown() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: EchoResponder(probe: .init()))
        try server.start()
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /one HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        // A grace period three times the bound: waiting for the idle connection would run it out.
        let started = ContinuousClock.now
        server.shutdown(gracePeriod: .seconds(60))
        #expect(ContinuousClock.now - started < .seconds(20), "shutdown waited for an idle keep-alive connection")
        #expect(try connection.isClosedByServer())
    }

    @Test func emptyResponseHeaderValuesSurvive() throws {
        struct EmptyHeader: HTTPResponder {
            func respond(to request: Request) -> Response {
                Response(status: 200, headers: HTTPFields(fields: [("X-Empty", ""), ("X-Full", "yes")]), body: Array("ok".utf8))
            }
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 2), responder: EmptyHeader())
        try server.start()
        defer { server.shutdown() }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.values("X-Empty") == [""])
        #expect(response.values("X-Full") == ["yes"])
    }

    @Test func portZeroBindsARealPort() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), responder: EchoResponder(probe: .init()))
        #expect(server.port == 0)
        try server.start()
        defer { server.shutdown() }
        #expect((1...65535).contains(server.port))
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /ping HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
    }

    @Test func localhostResolvesAndABusyPortIsReported() throws {
        let first = HTTPServer(configuration: HTTPServerConfiguration(host: "localhost", port: 0), responder: EchoResponder(probe: .init()))
        try first.start()
        defer { first.shutdown() }
        let connection = try RawConnection(port: first.port)
        try connection.send("GET /ping HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try connection.readResponse().status == 200)

        let second = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: first.port), responder: EchoResponder(probe: .init()))
        let error = #expect(throws: HTTPServerError.self) { try second.start() }
        #expect(error?.message.hasPrefix("cannot listen on 127.0.0.1:\(first.port): Address already in use") == true)
    }

    @Test func unknownHostIsReported() {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "no-such-host.invalid", port: 0), responder: EchoResponder(probe: .init()))
        let error = #expect(throws: HTTPServerError.self) { try server.start() }
        #expect(error?.message.hasPrefix("cannot resolve no-such-host.invalid") == true)
    }

    @Test func terminationSignalIsTakenBySigwait() {
        // On a thread of its own: the mask is per thread, and the test runner's threads keep theirs.
        let result = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        defer { result.deallocate() }
        result.pointee = 0
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            TerminationSignals.block()
            pthread_kill(pthread_self(), SIGTERM)
            argument!.assumingMemoryBound(to: Int32.self).pointee = TerminationSignals.wait()
            return nil
        }, result)
        #expect(created == 0)
        pthread_join(thread, nil)
        #expect(result.pointee == SIGTERM)
    }
}

/// Whether a connection to `port` is refused now (ECONNREFUSED), as after the listener shut down.
private func refusesConnections(_ port: Int) -> Bool {
    do {
        _ = try RawConnection(port: port)
        return false
    } catch let error as RawConnection.ConnectError {
        return error.code == ECONNREFUSED
    } catch {
        return false
    }
}
