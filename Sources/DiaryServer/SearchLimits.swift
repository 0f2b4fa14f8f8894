/// How much of the server uncached searches may take, so that no burst of them holds the
/// others hostage (see `SearchAdmission`). The transport answers searches on threads of their
/// own (`DiaryApplication.mayTakeLong`), and these limits bound how many run at once and how
/// often one address may start one.
public struct SearchLimits: Sendable, Equatable {
    /// Searches that miss the response cache running at once; more wait their turn.
    public var concurrency: Int
    /// How long a search waits for its turn before it is answered 503 with `Retry-After`.
    public var queueWait: Duration
    /// Searches per second each client address may start without a token, once its burst is
    /// spent; 0 turns the limit off. Past it: 429 with `Retry-After`.
    public var ratePerSecond: Int
    /// Searches an address may start at once after a quiet spell.
    public var burst: Int

    /// Addresses the rate limit remembers at once; the least recently seen is forgotten first.
    /// 4,096 buckets are about 200 KiB.
    public static let rememberedAddresses = 4096

    public init(concurrency: Int = 1, queueWait: Duration = .milliseconds(500), ratePerSecond: Int = 10, burst: Int = 20) {
        self.concurrency = concurrency
        self.queueWait = queueWait
        self.ratePerSecond = ratePerSecond
        self.burst = burst
    }

    /// Half the worker threads, at least one: the others keep serving entry reads and writes.
    public static func defaultConcurrency(threads: Int) -> Int {
        max(1, threads / 2)
    }
}
