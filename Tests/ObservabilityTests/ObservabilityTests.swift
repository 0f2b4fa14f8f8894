import Foundation
@testable import Observability
import Testing

/// The parts of the metrics and the access log that parse or format text.
@Suite struct LogfmtTests {
    @Test func plainValuesAsTheyAreOthersQuotedWithGoEscapes() {
        var line = Logfmt()
        line.append("route", "/api/entries/{entry_id}")
        line.append("empty", "")
        line.append("spaced", "a b")
        line.append("tricky", "x=\"y\"\\\n\u{1}")
        #expect(line.text == #"route=/api/entries/{entry_id} empty="" spaced="a b" tricky="x=\"y\"\\\n\u0001""#)
        #expect(line.bytes.last == UInt8(ascii: "\n"))
    }

    @Test func durationsInSecondsWithMicroseconds() {
        #expect(AccessLog.seconds(.microseconds(412)) == "0.000412")
        #expect(AccessLog.seconds(.milliseconds(2500)) == "2.500000")
        #expect(AccessLog.timestamp().wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
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
