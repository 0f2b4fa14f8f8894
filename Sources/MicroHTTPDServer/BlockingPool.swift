import Foundation

/// Threads for requests whose answer waits on the disk (a durable write), so that the
/// libmicrohttpd workers, one per core, never wait with them: while a write waits for its
/// fsync, the worker serves reads on its other connections, and the writes waiting together
/// share one fsync. Threads start when work arrives and none is idle, up to `limit`; past it,
/// work waits its turn.
final class BlockingPool: @unchecked Sendable {
    private let limit: Int
    private let condition = NSCondition()
    private var work: [@Sendable () -> Void] = []
    private var threads = 0
    private var idle = 0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        work.append(job)
        if idle > 0 {
            condition.signal()
        } else if threads < limit {
            threads += 1
            let thread = Thread { [self] in serve() }
            thread.name = "diary-blocking"
            thread.start()
        }
    }

    /// Threads live as long as the process: there are at most `limit`, and an idle one costs
    /// only its stack.
    private func serve() {
        condition.lock()
        while true {
            while work.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = work.removeFirst()
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
