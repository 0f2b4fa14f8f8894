import HTTPTypes
import Prometheus
import Synchronization

/// Requests counted by method, route template and status class, and their latency, in
/// Prometheus' conventions (`diary_http_requests_total`, `diary_http_request_duration_seconds`).
///
/// Labelled by the route's template (`/api/entries/{entry_id}`), never the raw path: one
/// series per route, not one per entry, and no identifier or query string in the metrics. A
/// route's series are made on its first request, once; recording is then a dictionary lookup
/// under a lock, an atomic add and a histogram's lock (see docs/operations.md for its cost).
public final class RequestMetrics: Sendable {
    /// Latency buckets, in seconds: a cached read takes well under a millisecond, a durable
    /// write a few, a search over a large diary up to hundreds.
    public static let buckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
    /// The route label of a request no route matched (404, a broken path) or that the
    /// transport refused before routing.
    public static let unmatchedRoute = "unmatched"

    private struct Key: Hashable {
        var method: HTTPRequest.Method
        var route: String
    }

    /// One route's series: a counter per status class (1xx to 5xx) and the latency histogram.
    private struct Series: Sendable {
        let byClass: [Counter]
        let duration: DurationHistogram
    }

    private let registry: PrometheusCollectorRegistry
    private let series = Mutex<[Key: Series]>([:])
    // Descriptors are not Sendable: made when a route's series are, under the lock.
    private static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "diary", subsystem: "http", metricName: "requests", unitName: "total",
            helpText: "Requests answered, by method, route template and status class."
        )
    }
    private static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "diary", subsystem: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "Time from a complete request to its answer being ready (a streamed body: its first chunk), by method and route."
        )
    }

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    /// Counts one answer.
    public func record(method: HTTPRequest.Method, route: String?, status: Int, duration elapsed: Duration) {
        let key = Key(method: method, route: route ?? Self.unmatchedRoute)
        let found = series.withLock { series in
            if let found = series[key] { return found }
            let made = makeSeries(key)
            series[key] = made
            return made
        }
        found.byClass[min(max(status / 100, 1), 5) - 1].increment()
        found.duration.record(elapsed)
    }

    private func makeSeries(_ key: Key) -> Series {
        let labels = [("method", key.method.rawValue), ("route", key.route)]
        return Series(
            byClass: (1...5).map { digit in registry.makeCounter(descriptor: Self.requests, labels: labels + [("status_class", "\(digit)xx")]) },
            duration: registry.makeDurationHistogram(descriptor: Self.duration, labels: labels, buckets: Self.buckets)
        )
    }
}
