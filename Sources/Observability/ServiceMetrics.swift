import DiaryStore
import Foundation
import Prometheus
import Synchronization

/// Where the service's own metrics are read from at each scrape: each part that counts keeps
/// its totals itself, so that serving a request pays nothing for them. Nil: not there (no
/// response cache, no scheduled backups).
public struct MetricSources: Sendable {
    public var store: (any OperatedStore)?
    /// The response cache's hits and misses so far and the bytes it holds now.
    public var responseCache: (@Sendable () -> (hits: Int, misses: Int, bytes: Int))?
    /// Scheduled backups taken and failed so far, and when the last good one finished.
    public var backups: (@Sendable () -> (taken: Int, failed: Int, lastSuccess: Date?))?
    /// Called with the cause when a part cannot be read (the store did not answer): the scrape
    /// still answers, with that part's metrics as they were.
    public var log: @Sendable (String) -> Void

    public init(
        store: (any OperatedStore)? = nil,
        responseCache: (@Sendable () -> (hits: Int, misses: Int, bytes: Int))? = nil,
        backups: (@Sendable () -> (taken: Int, failed: Int, lastSuccess: Date?))? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.store = store
        self.responseCache = responseCache
        self.backups = backups
        self.log = log
    }
}

/// The diary's gauges, and the counters that follow totals kept elsewhere, set at each scrape
/// (which runs them before the exposition is written). A metric appears at the first scrape
/// its source has a value for: the SQLite ones on SQLite only, the PostgreSQL ones on PostgreSQL.
final class ServiceMetrics: Sendable {
    private let sources: MetricSources
    private let registry: PrometheusCollectorRegistry
    private let mirrors = Mutex<[String: MirroredCounter]>([:])

    init(registry: PrometheusCollectorRegistry, sources: MetricSources) {
        self.registry = registry
        self.sources = sources
    }

    /// Reads every source once.
    func collect() {
        if let store = sources.store {
            do {
                record(try store.statistics())
            } catch {
                sources.log("metrics: cannot read the store's statistics: \(error)")
            }
        }
        if let read = sources.responseCache {
            let counts = read()
            follow("response_cache", "hits", counts.hits, "Answers served from the response cache.")
            follow("response_cache", "misses", counts.misses, "Cacheable answers built because none was kept.")
            set("response_cache", "held", "bytes", Double(counts.bytes), "Bytes of answers the response cache holds.")
        }
        if let read = sources.backups {
            let counts = read()
            follow("backups", "taken", counts.taken, "Scheduled backups that succeeded.")
            follow("backups", "failed", counts.failed, "Scheduled backups that failed.")
            set(
                "backups", "last_success", "timestamp_seconds", counts.lastSuccess?.timeIntervalSince1970 ?? 0,
                "When the last scheduled backup that succeeded finished (Unix time); 0 before the first."
            )
        }
    }

    private func record(_ statistics: StoreStatistics) {
        set("store", "users", "", Double(statistics.users), "Users in the database.")
        set("store", "entries", "", Double(statistics.entries), "Entries in the database, of every visibility.")
        set("store", "media", "bytes", 0, "Bytes of stored media: always 0, as entries hold no photos yet.")
        if let waiting = statistics.writesWaiting {
            set("sqlite", "writes_waiting", "", Double(waiting), "Writes queued for the next group commit.")
        }
        if let commits = statistics.groupCommits, let writes = statistics.groupedWrites {
            follow("sqlite", "group_commits", commits, "Group-commit transactions; writes over commits is the mean group size.")
            follow("sqlite", "group_committed_writes", writes, "Writes committed in group-commit transactions.")
        }
        if let inUse = statistics.connectionsInUse, let open = statistics.connectionsOpen, let waits = statistics.connectionWaits {
            set("postgres", "connections_in_use", "", Double(inUse), "Pooled database connections handed out now.")
            set("postgres", "connections_open", "", Double(open), "Pooled database connections open now.")
            follow("postgres", "connection_waits", waits, "Store calls that found every pooled connection taken and waited.")
        }
    }

    /// Sets a gauge; the registry makes it on first use and returns the same one after.
    private func set(_ subsystem: String, _ name: String, _ unit: String, _ value: Double, _ help: String) {
        registry.makeGauge(descriptor: descriptor(subsystem, name, unit, help)).set(value)
    }

    /// Moves a `_total` counter up to a total kept by its source.
    private func follow(_ subsystem: String, _ name: String, _ total: Int, _ help: String) {
        let described = descriptor(subsystem, name, "total", help)
        let mirror = mirrors.withLock { mirrors in
            if let found = mirrors[described.name] { return found }
            let made = MirroredCounter(registry.makeCounter(descriptor: described))
            mirrors[described.name] = made
            return made
        }
        mirror.follow(Double(total))
    }

    private func descriptor(_ subsystem: String, _ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "diary", subsystem: subsystem, metricName: name, unitName: unit, helpText: help)
    }
}
