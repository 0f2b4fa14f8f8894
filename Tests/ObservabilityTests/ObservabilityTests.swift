import Foundation
import HTTPCore
@testable import Observability
import Testing

/// The parts of the metrics and the access log that parse or format text.
@Suite struct AccessLogLineTests {
    @Test func fieldsInOrderWithDigitsWrittenByHand() {
        let bytes = AccessLogLine.bytes { line in
            line.field("route", "/api/entries/{entry_id}")
            line.field("status", 200)
            line.field("bytes", 0)
            line.field("big", 1_234_567_890)
            line.field("duration", microseconds: 412)
            line.field("slow", microseconds: 2_500_000)
            line.end()
        }
        #expect(String(decoding: bytes, as: UTF8.self)
            == "route=/api/entries/{entry_id} status=200 bytes=0 big=1234567890 duration=0.000412 slow=2.500000\n")
    }

    /// A line never outgrows its buffer: each text is cut at `longestValue` bytes.
    @Test func longTextsAreCut() {
        let long = String(repeating: "A", count: 5_000)
        let bytes = AccessLogLine.bytes { line in
            for _ in 0..<4 { line.field("method", long) }
            line.end()
        }
        #expect(bytes.count == 4 * ("method=".count + AccessLogLine.longestValue) + 3 + 1)
    }

    @Test func timeIsUTCWithMilliseconds() {
        #expect(String(decoding: LogClock.secondsText(0), as: UTF8.self) == "1970-01-01T00:00:00.")
        #expect(String(decoding: LogClock.secondsText(1_795_337_701), as: UTF8.self) == "2026-11-22T08:55:01.")
        let bytes = AccessLogLine.bytes { LogClock().appendNow(to: &$0) }
        #expect(String(decoding: bytes, as: UTF8.self).wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
    }

    @Test func requestIDsAreDistinctHex() {
        let ids = RequestIDs()
        let first = ids.next().text, second = ids.next().text
        #expect(first != second)
        #expect(first.wholeMatch(of: /[0-9a-f]{6}-0{7}1/) != nil, "\(first)")
        #expect(second.hasSuffix("2"))
    }
}

@Suite struct ProcStatTests {
    /// The command name is in parentheses and may hold spaces and parentheses itself.
    @Test func fieldsAfterTheLastParenthesis() throws {
        let line = "4242 (diary (server) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 9 0 123456 987654321 2048 18446744073709551615"
        let stat = try #require(ProcStat.parse(line))
        #expect(stat.userTicks == 250)
        #expect(stat.systemTicks == 75)
        #expect(stat.startTicks == 123456)
        #expect(stat.virtualBytes == 987654321)
        #expect(stat.residentPages == 2048)
        #expect(ProcStat.parse("4242 (truncated) S 1 2") == nil)
    }

    @Test func thisProcessIsReadable() throws {
        let stat = try #require(ProcStat.read())
        #expect(stat.residentPages > 0)
        #expect(try #require(ProcStat.bootTime()) > 1_600_000_000)
    }
}

/// The wrapper that times and logs answers is invisible to the transport: where a request is
/// answered (a worker, the threads of writes, the threads of long searches) is still the
/// application's call.
@Suite struct InstrumentedResponderTests {
    /// Blocks on POST, takes long on `/slow`.
    struct Application: HTTPResponder {
        func respond(to request: Request) -> Response { Response(status: .ok) }
        func mayBlock(_ request: Request) -> Bool { request.method == .post }
        func mayTakeLong(_ request: Request) -> Bool { request.path == "/slow" }
    }

    @Test func whereARequestRunsIsTheWrappedApplicationsCall() {
        let instrumented = InstrumentedResponder(wrapping: Application(), metrics: nil, accessLog: nil)
        let slow = Request(method: .get, target: "/slow"), quick = Request(method: .get, target: "/quick")
        #expect(instrumented.mayTakeLong(slow))
        #expect(!instrumented.mayTakeLong(quick))
        #expect(instrumented.mayBlock(Request(method: .post, target: "/quick")))
        #expect(!instrumented.mayBlock(quick))
    }
}
