import ArgumentParser
import DiaryServer
import DiarySQLiteStore
import DiaryStore
import Foundation
import HTTPCore
import MicroHTTPDServer
import Observability

/// `serve --metrics ADDR` and `serve --access-log PATH|-`: what an operator watches. Both off by default.
struct ObservabilityOptions: ParsableArguments {
    @Option(help: """
        Serve Prometheus metrics at /metrics on this address (127.0.0.1:9464; port 0 takes a free one), \
        a listener of its own, never the public port. Default: off.
        """)
    var metrics: String?

    @Option(help: "Write one logfmt line per request to this file (appending), or to standard output for -. Default: off.")
    var accessLog: String?

    /// `--metrics` as host and port: `HOST:PORT`, `[IPv6]:PORT`; nil when malformed.
    static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.contains(":") == text.hasPrefix("[") else { return nil }
        return (host, port)
    }

    func validate(publicHost: String, publicPort: Int) throws {
        if let metrics {
            guard let address = Self.address(metrics) else {
                throw ValidationError("--metrics must be HOST:PORT, such as 127.0.0.1:9464 or [::1]:9464.")
            }
            if address.port != 0 && address.port == publicPort {
                throw ValidationError("--metrics must not use the public port (\(publicPort)): metrics get a listener of their own.")
            }
        }
        if let accessLog, accessLog.isEmpty { throw ValidationError("--access-log needs a file, or - for standard output.") }
    }

    /// Opens the access log and starts the metrics listener; nil when neither is asked for.
    func start(
        store: any DiaryStore, application: DiaryApplication, backups: ScheduledBackups?
    ) throws -> RunningObservability? {
        guard metrics != nil || accessLog != nil else { return nil }
        let log = try accessLog.map(Self.openAccessLog)
        var exposition: MetricsExposition?
        var metricsServer: HTTPServer?
        if let metrics, let address = Self.address(metrics) {
            let made = MetricsExposition(sources: Self.sources(store: store, cache: application.responseCache, backups: backups))
            let configuration = HTTPServerConfiguration(host: address.host, port: address.port, threads: 1, blockingThreads: 2)
            let server = HTTPServer(configuration: configuration, responder: made)
            do {
                try server.start()
            } catch {
                log?.close()
                throw ObservabilityError(message: "metrics: \(error)")
            }
            exposition = made
            metricsServer = server
        }
        return RunningObservability(metricsServer: metricsServer, exposition: exposition, accessLog: log)
    }
}

extension ObservabilityOptions {
    static func openAccessLog(_ path: String) throws(ObservabilityError) -> AccessLog {
        do {
            return try AccessLog(path: path)
        } catch {
            throw ObservabilityError(message: error.description)
        }
    }

    /// What `/metrics` reads at each scrape: the store, the response cache, the scheduled backups.
    static func sources(store: any DiaryStore, cache: ResponseCache?, backups: ScheduledBackups?) -> MetricSources {
        var readCache: (@Sendable () -> (hits: Int, misses: Int, bytes: Int))?
        if let cache {
            readCache = { cache.counts }
        }
        var readBackups: (@Sendable () -> (taken: Int, failed: Int, lastSuccess: Date?))?
        if let backups {
            readBackups = {
                let counts = backups.counts
                return (counts.taken, counts.failed, counts.lastSuccess)
            }
        }
        return MetricSources(
            store: store as? any OperatedStore, responseCache: readCache, backups: readBackups,
            log: { message in FileHandle.standardError.write(Data("diary-server: \(message)\n".utf8)) }
        )
    }
}

struct ObservabilityError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The metrics listener and access log of a running server.
struct RunningObservability {
    let metricsServer: HTTPServer?
    let exposition: MetricsExposition?
    let accessLog: AccessLog?

    /// The application wrapped so that each request is counted and logged.
    func instrument(_ application: any HTTPResponder) -> any HTTPResponder {
        InstrumentedResponder(wrapping: application, metrics: exposition?.requests, accessLog: accessLog)
    }

    /// Stops the metrics listener and writes the rest of the access log: after the public server stopped.
    func stop() {
        metricsServer?.shutdown(gracePeriod: .seconds(1))
        accessLog?.close()
    }
}
