import HTTPCore
import HTTPTypes
import Prometheus
import Synchronization

/// Everything `/metrics` shows, and the responder of the metrics listener, which serves only
/// that path: requests (`RequestMetrics`), the process, and the service's own totals
/// (`MetricSources`), read at each scrape. A registry of its own, not swift-metrics' global
/// bootstrap: a process may run several servers (the tests do), each with its metrics.
public final class MetricsExposition: HTTPResponder, Sendable {
    public static let path = "/metrics"
    /// Prometheus' text format, version 0.0.4: what every Prometheus server scrapes.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public let requests: RequestMetrics
    private let registry: PrometheusCollectorRegistry
    private let process: ProcessMetrics
    private let service: ServiceMetrics
    /// One scrape at a time: two at once would read the same totals twice for nothing.
    private let scraping = Mutex(())

    public init(sources: MetricSources) {
        registry = PrometheusCollectorRegistry()
        requests = RequestMetrics(registry: registry)
        process = ProcessMetrics(registry: registry)
        service = ServiceMetrics(registry: registry, sources: sources)
    }

    /// The exposition, every source read now.
    public func scrape() -> [UInt8] {
        scraping.withLock { _ in
            process.collect()
            service.collect()
            return registry.emitToBuffer()
        }
    }

    public func respond(to request: Request) -> Response {
        guard request.path == Self.path else {
            return Response(status: 404, headers: [.contentType: "text/plain; charset=utf-8"], body: Array("Only \(Self.path) is served here.\n".utf8))
        }
        guard request.method == .get || request.method == .head else {
            return Response(status: 405, headers: [.contentType: "text/plain; charset=utf-8", .allow: "GET, HEAD"], body: Array("Use GET.\n".utf8))
        }
        return Response(status: 200, headers: [.contentType: Self.contentType, .cacheControl: "no-store"], body: scrape())
    }

    /// Reading the store's counts waits on the database: off the listener's event thread.
    public func mayBlock(_ request: Request) -> Bool {
        true
    }
}
