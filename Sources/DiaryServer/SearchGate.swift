import Foundation

/// A counting gate: at most `capacity` holders at once; a caller waits its turn for a bounded
/// time and is turned away past it. What keeps uncached searches, which may each run up to
/// the query timeout, from taking every thread that reads the database.
final class SearchGate: @unchecked Sendable {
    let capacity: Int
    private let condition = NSCondition()
    private var holders = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Takes a place, waiting for one at most `wait`: false when none came free in time.
    func enter(waitingAtMost wait: Duration) -> Bool {
        let (seconds, attoseconds) = wait.components
        let deadline = Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while holders >= capacity {
            if !condition.wait(until: deadline) { return false }
        }
        holders += 1
        return true
    }

    /// Gives a place back, to the next in line.
    func leave() {
        condition.lock()
        holders -= 1
        condition.signal()
        condition.unlock()
    }

    /// Places taken now: for tests.
    var taken: Int {
        condition.lock()
        defer { condition.unlock() }
        return holders
    }
}
