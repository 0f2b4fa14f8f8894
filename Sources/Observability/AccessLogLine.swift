import Glibc
import Synchronization

/// One access-log line in logfmt (`time=… method=GET route=/api/entries status=200 …\n`),
/// written straight into bytes.
///
/// Why by hand, not through swift-log: in a release build under callgrind (`bench/profile list`,
/// 2026-11-25) a cached read cost 130,406 instructions without the log and 171,930 with it
/// through swift-log, the line made as a `Logger.Message` (a metadata dictionary per request had
/// been worse still): 32 % more, against a budget of 5 %. Strings, their appends and integer
/// descriptions were most of it. Here every value is appended as bytes, and the time's text is
/// made once a second.
///
/// No value needs logfmt's quoting: the method is an HTTP token, the route a template of the
/// server's own (or `unmatched`), the rest digits, hex, an IP address and fixed text.
struct AccessLogLine {
    private(set) var bytes: [UInt8] = []
    /// A field was written: the next one starts with a space.
    private var hasField = false

    init() {}

    /// A line written at the end of `buffer`, which it holds until `finish(into:)` gives it
    /// back (swapped, never copied).
    init(continuing buffer: inout [UInt8]) {
        swap(&bytes, &buffer)
    }

    /// Gives the bytes back to the buffer the line continued.
    mutating func finish(into buffer: inout [UInt8]) {
        swap(&bytes, &buffer)
    }

    mutating func field(_ key: StaticString, _ value: String) {
        start(key)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func field(_ key: StaticString, _ value: Int) {
        start(key)
        appendDecimal(value)
    }

    /// Seconds with six decimals (`0.000412`).
    mutating func field(_ key: StaticString, seconds duration: Duration) {
        start(key)
        let microseconds = max(0, Int(duration.components.seconds) * 1_000_000 + Int(duration.components.attoseconds / 1_000_000_000_000))
        appendDecimal(microseconds / 1_000_000)
        bytes.append(UInt8(ascii: "."))
        appendDigits(microseconds % 1_000_000, width: 6)
    }

    /// The current UTC time with milliseconds (`2026-11-25T08:55:01.123Z`).
    mutating func field(_ key: StaticString, clock: LogClock) {
        start(key)
        clock.appendNow(to: &bytes)
    }

    /// Ends the line with its newline.
    mutating func end() {
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func start(_ key: StaticString) {
        if hasField { bytes.append(UInt8(ascii: " ")) }
        hasField = true
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "="))
    }

    private mutating func appendDecimal(_ value: Int) {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        appendDigits(value, width: digits)
    }

    /// Text as it is, no key: for the parts of a value made elsewhere.
    mutating func appendRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `value` in exactly `width` decimal digits (at most 18), zero-padded: appended from the
    /// most significant digit, with no write back into the line.
    mutating func appendDigits(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<max(width, 1) { divisor &*= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
    }
}
