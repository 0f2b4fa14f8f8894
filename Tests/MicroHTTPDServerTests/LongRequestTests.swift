import HTTPCore
import Testing
@testable import MicroHTTPDServer

/// Requests the responder says may take long (`mayTakeLong`, a search no cache answers) run on
/// threads of their own: the one worker thread keeps answering other reads meanwhile.
struct LongRequestTests {
    @Test func aLongReadLeavesTheWorkerFreeForOtherReads() throws {
        let probe = EchoResponder.Probe()
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 1), responder: EchoResponder(probe: probe))
        try server.start()
        defer { server.shutdown(gracePeriod: .seconds(2)) }
        defer { probe.releaseSlow() }  // before the shutdown, which waits for it
        let searcher = try RawConnection(port: server.port)
        try searcher.send("GET /slow?long HTTP/1.1\r\nHost: test\r\n\r\n")
        try #require(probe.waitForSlowRequest(), "the long request never reached the responder")
        // Held until released below: had it the only worker, this read would wait for it.
        let reader = try RawConnection(port: server.port)
        for path in ["/one", "/two"] {
            try reader.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try reader.readResponse().text == "GET \(path) <none>", "the read waited for the long request")
        }
        #expect(probe.slowFinished.load(ordering: .acquiring) == false)

        probe.releaseSlow()
        let slow = try searcher.readResponse()
        #expect(slow.status == 200 && slow.text == "slow done")
        try searcher.send("GET /after HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try searcher.readResponse().text == "GET /after <none>")
    }

    /// The responder learns the client's address, for limits per address.
    @Test func theRequestCarriesTheClientsAddress() throws {
        try withServer { server, _ in
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /who HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try connection.readResponse().header("X-Client-Address") == "127.0.0.1")
        }
    }
}
