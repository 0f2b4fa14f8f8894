import Foundation
import Testing

/// `serve --metrics`: the exposition on its own listener, linted by `promtool` and scraped by a
/// real Prometheus (Debian's `prometheus`, installed by scripts/test), never on the public port.
@Suite struct MetricsTests {
    static let prometheus = URL(fileURLWithPath: "/usr/bin/prometheus")
    static let promtool = URL(fileURLWithPath: "/usr/bin/promtool")

    /// GET `target` on the metrics listener.
    static func metrics(_ server: ServerProcess, _ target: String = "/metrics") throws -> RawResponse {
        let connection = try RawConnection(port: try #require(server.metricsPort))
        try connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return try connection.readResponse()
    }

    @Test func theExpositionPassesPromtoolAndCountsByRouteTemplate() throws {
        let server = try ServerProcess(extraArguments: ["--metrics", "127.0.0.1:0"])
        let token = try server.addUser("alice")
        let posted = try server.raw("POST", "/api/entries", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: #"{"title":"t","body":"b"}"#)
        #expect(posted.status == 201)
        let entryID = try #require((try JSONSerialization.jsonObject(with: Data(posted.body)) as? [String: Any])?["entry_id"] as? Int)
        for _ in 0..<3 { #expect(try server.raw("GET", "/api/entries/\(entryID)").status == 200) }
        #expect(try server.raw("GET", "/no/such/page").status == 404)

        let scraped = try Self.metrics(server)
        #expect(scraped.status == 200)
        #expect(scraped.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = scraped.text
        // By template, never by raw path: the entry's id is in no label.
        #expect(text.contains(#"diary_http_requests_total{method="GET",route="/api/entries/{entry_id}",status_class="2xx"} 3"#), "\(text)")
        #expect(text.contains(#"diary_http_requests_total{method="POST",route="/api/entries",status_class="2xx"} 1"#))
        #expect(text.contains(#"diary_http_requests_total{method="GET",route="unmatched",status_class="4xx"} 1"#))
        #expect(!text.contains("/api/entries/\(entryID)"))
        #expect(text.contains(#"diary_http_request_duration_seconds_count{method="GET",route="/api/entries/{entry_id}"} 3"#))
        for name in ["diary_store_entries 1", "diary_store_users 1", "diary_response_cache_hits_total", "process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds"] {
            #expect(text.contains(name), "no \(name)")
        }

        let lint = try run(Self.promtool, ["check", "metrics"], stdin: text)
        #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
    }

    @Test func metricsAreNeverOnThePublicPort() throws {
        let server = try ServerProcess(extraArguments: ["--metrics", "127.0.0.1:0"])
        #expect(server.metricsPort != server.port)
        let onPublic = try server.raw("GET", "/metrics")
        #expect(onPublic.status == 404)
        #expect(!onPublic.text.contains("diary_http_requests_total"))
        // And the metrics listener serves nothing else.
        #expect(try Self.metrics(server, "/api/health").status == 404)
        // Off by default: no second listener line, nothing at /metrics.
        let plain = try ServerProcess()
        #expect(plain.metricsPort == nil)
        #expect(try plain.raw("GET", "/metrics").status == 404)
    }

    @Test func prometheusScrapesTheCounterAndTheHistogram() throws {
        let server = try ServerProcess(extraArguments: ["--metrics", "127.0.0.1:0"])
        for _ in 0..<5 { #expect(try server.raw("GET", "/api/health").status == 200) }
        let scraper = try PrometheusProcess(target: "127.0.0.1:\(try #require(server.metricsPort))", folder: server.directory)
        defer { scraper.stop() }
        let counter = try scraper.waitForValue(#"sum(diary_http_requests_total{route="/api/health",status_class="2xx"})"#)
        #expect(counter == 5)
        let histogramCount = try scraper.waitForValue(#"sum(diary_http_request_duration_seconds_bucket{route="/api/health",le="+Inf"})"#)
        #expect(histogramCount == 5)
    }
}

/// Debian's `prometheus` scraping one target every second, on a free port, its data in `folder`.
final class PrometheusProcess {
    let process = Process()
    let port: Int

    init(target: String, folder: URL) throws {
        port = try freePort()
        let config = folder.appendingPathComponent("prometheus.yml")
        try """
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: diary
                static_configs:
                  - targets: ["\(target)"]
            """.write(to: config, atomically: true, encoding: .utf8)
        process.executableURL = MetricsTests.prometheus
        process.arguments = [
            "--config.file=\(config.path)", "--storage.tsdb.path=\(folder.appendingPathComponent("tsdb").path)",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The value of a one-sample PromQL query, asked until Prometheus has scraped it (60 s at most).
    func waitForValue(_ query: String) throws -> Double {
        let deadline = ContinuousClock.now + .seconds(60)
        let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        while ContinuousClock.now < deadline {
            if let connection = try? RawConnection(port: port),
               (try? connection.send("GET /api/v1/query?query=\(encoded) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) != nil,
               let response = try? connection.readResponse(), response.status == 200,
               let value = Self.sampleValue(response.body) {
                return value
            }
            usleep(100_000)  // Polling a condition with a deadline: Prometheus scrapes once a second.
        }
        throw RawHTTPError(message: "Prometheus answered no sample for \(query) within 60 s")
    }

    /// `data.result[0].value[1]` of a query's answer.
    static func sampleValue(_ body: [UInt8]) -> Double? {
        guard let answer = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let data = answer["data"] as? [String: Any], let result = data["result"] as? [[String: Any]],
              let value = result.first?["value"] as? [Any], value.count == 2, let text = value[1] as? String
        else { return nil }
        return Double(text)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// A TCP port free on 127.0.0.1 now: bound to port 0, read back, released.
func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    guard bound else { throw RawHTTPError(message: "no free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}
