import Synchronization

/// Request ids for the access log and `X-Request-Id`: a random prefix drawn at start, so that
/// ids from two runs or two servers differ, and a counter (`5f3a9c01-00000000002a`), so that
/// making one costs an atomic add and a few bytes of hex, and no system call.
public final class RequestIDs: Sendable {
    private let prefix: UInt32
    private let counter = Atomic<UInt64>(0)

    public init() {
        prefix = UInt32.random(in: .min ... .max)
    }

    public func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 21) { buffer in
            Self.hex(UInt64(prefix), digits: 8, into: buffer, at: 0)
            buffer[8] = UInt8(ascii: "-")
            Self.hex(number, digits: 12, into: buffer, at: 9)
            return 21
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
