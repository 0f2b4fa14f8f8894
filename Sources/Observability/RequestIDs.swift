import Synchronization

/// Request ids for the access log and `X-Request-Id`: a random prefix drawn at start, so that
/// ids from two runs or two servers differ, and a counter (`5f3a9c-0000002a`), so that making
/// one costs an atomic add and a few bytes of hex, and no system call. 15 bytes, the most a
/// Swift string holds without allocating: a cached read is measured in instructions, and a
/// heap string per request was a visible part of the access log's cost.
public final class RequestIDs: Sendable {
    private let prefix: UInt32
    private let counter = Atomic<UInt64>(0)

    public init() {
        prefix = UInt32.random(in: 0...0xFF_FFFF)
    }

    public func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        // The counter's low 32 bits: ids repeat after 4 billion requests of one run, which the
        // prefix and the log's time tell apart.
        return String(unsafeUninitializedCapacity: 15) { buffer in
            Self.hex(UInt64(prefix), digits: 6, into: buffer, at: 0)
            buffer[6] = UInt8(ascii: "-")
            Self.hex(number & 0xFFFF_FFFF, digits: 8, into: buffer, at: 7)
            return 15
        }
    }

    private static func hex(_ value: UInt64, digits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        var rest = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            let digit = UInt8(rest & 0xF)
            buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            rest >>= 4
        }
    }
}
