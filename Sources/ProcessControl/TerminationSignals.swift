import Glibc

/// SIGINT and SIGTERM taken synchronously by one thread, so that a server can stop gracefully
/// instead of being ended in the middle of a request.
public enum TerminationSignals {
    /// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts later, so that
    /// no worker thread gets them and `wait()` can take them. Call it before anything starts threads.
    public static func block() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits until SIGINT or SIGTERM arrives and returns its number.
    public static func wait() -> Int32 {
        var signals = set
        // A signal that is not blocked would not wait for sigwait but end the process.
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received
    }

    private static var set: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }
}
