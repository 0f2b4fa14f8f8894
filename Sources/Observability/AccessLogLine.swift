import Glibc
import Synchronization

/// One access-log line in logfmt (`time=… method=GET route=/api/entries status=200 …\n`),
/// written straight into bytes.
///
/// Why by hand, not through swift-log: in a release build under callgrind (`bench/profile list`,
/// 2026-11-25) a cached read cost 130,406 instructions without the log and 171,930 with it
/// through swift-log, the line made as a `Logger.Message` (a metadata dictionary per request had
/// been worse still): 32 % more, against a budget of 5 %. Strings, their appends and integer
/// descriptions were most of it. Here every value is stored as bytes into a buffer on the stack,
/// then appended to the log at once (an array append per piece cost ~1,500 more), and the
/// time's text is made once a second.
///
/// No value needs logfmt's quoting: the method is an HTTP token, the route a template of the
/// server's own (or `unmatched`), the rest digits, hex, an IP address and fixed text.
struct AccessLogLine {
    /// The most bytes a line takes: keys, fixed-size values, and at most `longestValue` bytes of
    /// each of the four texts (method, route, id, client).
    static let capacity = 1_536
    /// Texts are cut here: only an absurd method token is that long.
    static let longestValue = 256

    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0
    /// A field was written: the next one starts with a space.
    private var hasField = false

    /// A line written into `buffer`, which holds at least `capacity` bytes.
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= Self.capacity)
        self.buffer = buffer
    }

    /// The line made by `write`, as an array: for what is made once (the time's text) and tests.
    static func bytes(_ write: (inout AccessLogLine) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = AccessLogLine(buffer)
            write(&line)
            return Array(line.written)
        }
    }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[..<count])
    }

    mutating func field(_ key: StaticString, _ value: String) {
        start(key)
        appendRaw(value)
    }

    mutating func field(_ key: StaticString, bytes value: UnsafeBufferPointer<UInt8>) {
        start(key)
        append(value)
    }

    mutating func field(_ key: StaticString, _ value: Int) {
        start(key)
        appendDecimal(value)
    }

    /// Microseconds as seconds with six decimals (`0.000412`).
    mutating func field(_ key: StaticString, microseconds: Int) {
        start(key)
        let microseconds = max(0, microseconds)
        appendDecimal(microseconds / 1_000_000)
        put(UInt8(ascii: "."))
        appendDigits(microseconds % 1_000_000, width: 6)
    }

    /// The current UTC time with milliseconds (`2026-11-25T08:55:01.123Z`).
    mutating func field(_ key: StaticString, clock: LogClock) {
        start(key)
        clock.appendNow(to: &self)
    }

    /// Ends the line with its newline.
    mutating func end() {
        put(UInt8(ascii: "\n"))
    }

    private mutating func start(_ key: StaticString) {
        if hasField { put(UInt8(ascii: " ")) }
        hasField = true
        key.withUTF8Buffer { append($0) }
        put(UInt8(ascii: "="))
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

    mutating func put(_ byte: UInt8) {
        buffer[count] = byte
        count += 1
    }

    /// Bytes as they are, at most `longestValue` of them.
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let length = min(bytes.count, Self.longestValue)
        guard length > 0, let source = bytes.baseAddress else { return }
        (buffer.baseAddress! + count).update(from: source, count: length)
        count += length
    }

    /// Text as it is, no key, at most `longestValue` bytes: for the parts of a value made elsewhere.
    mutating func appendRaw(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// `value` in exactly `width` decimal digits (at most 18), zero-padded: written from the
    /// least significant digit back.
    mutating func appendDigits(_ value: Int, width: Int) {
        var rest = value
        var index = count + width - 1
        while index >= count {
            buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        }
        count += width
    }
}
