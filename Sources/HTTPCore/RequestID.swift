/// An answer's id in the access log, sent as `X-Request-Id`: a run's random prefix and a
/// counter, written `5f3a9c-0000002a` (15 bytes) only where it is sent or logged. Numbers, not a
/// `String`: making the text once per request cost a cached read ~800 instructions (callgrind,
/// `bench/profile list`), a sixth of what the access log may add.
public struct RequestID: Sendable, Equatable {
    /// The run's prefix; its low 24 bits are shown.
    public let prefix: UInt32
    /// The request's number in the run; its low 32 bits are shown.
    public let number: UInt64

    public static let textLength = 15

    public init(prefix: UInt32, number: UInt64) {
        self.prefix = prefix
        self.number = number
    }

    /// Calls `body` with the text, `textLength` bytes in a buffer followed by a NUL (for C).
    /// Inlinable, so that the transport and the log get it specialized, closure and all.
    @inlinable
    public func withText<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.textLength + 1) { buffer in
            Self.hex(UInt64(prefix), digits: 6, into: buffer, at: 0)
            buffer[6] = UInt8(ascii: "-")
            Self.hex(number, digits: 8, into: buffer, at: 7)
            buffer[Self.textLength] = 0
            return try body(UnsafeBufferPointer(rebasing: buffer[..<Self.textLength]))
        }
    }

    public var text: String {
        withText { String(decoding: $0, as: UTF8.self) }
    }

    /// The low `digits` hex digits of `value`.
    @usableFromInline
    static func hex(_ value: UInt64, digits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        var rest = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            let digit = UInt8(rest & 0xF)
            buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            rest >>= 4
        }
    }
}
