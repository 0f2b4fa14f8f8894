import Synchronization

/// Request ids for the access log and `X-Request-Id`: a random prefix drawn at start, so that
/// ids from two runs or two servers differ, and a counter (`5f3a9c01-00000000002a`), so that
/// making one costs an atomic add and no system call.
public final class RequestIDs: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    public init() {
        prefix = String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8)
    }

    public func next() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(number, radix: 16).leftPadded(to: 12)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
