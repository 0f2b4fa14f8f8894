import HTTPCore
import Synchronization

/// Request ids for the access log and `X-Request-Id`: a random prefix drawn at start, so that
/// ids from two runs or two servers differ, and a counter, so that making one costs an atomic
/// add and no system call; its text is written only where it is sent or logged (`RequestID`).
public final class RequestIDs: Sendable {
    private let prefix: UInt32
    private let counter = Atomic<UInt64>(0)

    public init() {
        prefix = UInt32.random(in: 0...0xFF_FFFF)
    }

    public func next() -> RequestID {
        // Ids shown repeat after 4 billion requests of one run, which the log's time tells apart.
        RequestID(prefix: prefix, number: counter.add(1, ordering: .relaxed).newValue)
    }
}
