import Glibc

extension HTTPServer {
    /// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts later, so that
    /// no worker thread gets them and `waitForTerminationSignal()` can take them synchronously.
    /// Call it before `start()` and before anything else starts threads.
    public static func blockTerminationSignals() {
        var signals = terminationSignals
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits until SIGINT or SIGTERM arrives and returns its number.
    public static func waitForTerminationSignal() -> Int32 {
        var signals = terminationSignals
        // A signal that is not blocked would not wait for sigwait but end the process.
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received
    }

    private static var terminationSignals: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }
}
