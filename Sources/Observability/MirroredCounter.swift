import Prometheus
import Synchronization

/// A Prometheus counter that follows a total kept elsewhere (the response cache's hits, a
/// store's group commits, the process's CPU time), read when metrics are scraped: the place
/// that counts pays nothing for metrics, and the counter only ever goes up by the difference.
final class MirroredCounter: Sendable {
    private let counter: Counter
    private let last = Mutex<Double>(0)

    init(_ counter: Counter) {
        self.counter = counter
    }

    /// Moves the counter up to `total`; a smaller total (a counter that restarted) is taken as new.
    func follow(_ total: Double) {
        let step = last.withLock { last in
            defer { last = total }
            return total >= last ? total - last : total
        }
        if step > 0 { counter.increment(by: step) }
    }
}
