import CalendarTime
import Glibc
import Synchronization

/// The access log's time: UTC with milliseconds. The text up to the seconds is made once per
/// second and reused, so a line pays for a clock read and three digits.
final class LogClock: Sendable {
    /// The second the text is for, and the text.
    private struct SecondsText {
        var second: Int
        var text: [UInt8]
    }

    private let cached = Mutex(SecondsText(second: -1, text: []))

    func appendNow(to line: inout AccessLogLine) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = now.tv_sec
        let prefix = cached.withLock { cached in
            if cached.second != second {
                cached = SecondsText(second: second, text: Self.secondsText(second))
            }
            return cached.text
        }
        prefix.withUnsafeBufferPointer { line.append($0) }
        line.appendDigits(now.tv_nsec / 1_000_000, width: 3)
        line.put(UInt8(ascii: "Z"))
    }

    /// `2026-11-25T08:55:01.`
    static func secondsText(_ second: Int) -> [UInt8] {
        let time = CalendarTime(secondsSince1970: second)
        return AccessLogLine.bytes { line in
            line.appendDigits(time.year, width: 4)
            for (separator, value) in [("-", time.month), ("-", time.day), ("T", time.hour), (":", time.minute), (":", time.second)] {
                line.appendRaw(separator)
                line.appendDigits(value, width: 2)
            }
            line.appendRaw(".")
        }
    }
}
