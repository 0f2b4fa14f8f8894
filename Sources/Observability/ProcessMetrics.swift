import Foundation
import Prometheus

/// The process metrics every Prometheus client exports, under their standard names
/// (`process_resident_memory_bytes`, `process_open_fds`, `process_max_fds`,
/// `process_start_time_seconds`, `process_cpu_seconds_total`), read from `/proc/self` at each
/// scrape: Linux only, as the server is.
final class ProcessMetrics: Sendable {
    private let residentMemory: Gauge
    private let virtualMemory: Gauge
    private let openDescriptors: Gauge
    private let maxDescriptors: Gauge
    private let startTime: Gauge
    private let cpuSeconds: MirroredCounter

    init(registry: PrometheusCollectorRegistry) {
        func gauge(_ name: String, _ unit: String, _ help: String) -> Gauge {
            registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "process", metricName: name, unitName: unit, helpText: help))
        }
        residentMemory = gauge("resident_memory", "bytes", "Resident memory size in bytes.")
        virtualMemory = gauge("virtual_memory", "bytes", "Virtual memory size in bytes.")
        openDescriptors = gauge("open", "fds", "Number of open file descriptors.")
        maxDescriptors = gauge("max", "fds", "Maximum number of open file descriptors.")
        startTime = gauge("start_time", "seconds", "Start time of the process since the Unix epoch in seconds.")
        cpuSeconds = MirroredCounter(registry.makeCounter(descriptor: MetricNameDescriptor(
            namespace: "process", metricName: "cpu_seconds", unitName: "total", helpText: "Total user and system CPU time spent in seconds."
        )))
    }

    /// Reads `/proc/self` once; a file that cannot be read leaves its metrics as they were.
    func collect() {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        if let stat = ProcStat.read() {
            residentMemory.set(Double(stat.residentPages) * Double(sysconf(Int32(_SC_PAGESIZE))))
            virtualMemory.set(Double(stat.virtualBytes))
            cpuSeconds.follow(Double(stat.userTicks + stat.systemTicks) / ticks)
            if let boot = ProcStat.bootTime() {
                startTime.set(Double(boot) + Double(stat.startTicks) / ticks)
            }
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // Less the descriptor the listing itself held open.
            openDescriptors.set(Double(max(open.count - 1, 0)))
        }
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            maxDescriptors.set(Double(limit.rlim_cur))
        }
    }
}

/// The fields of `/proc/self/stat` that the process metrics use (proc(5)).
struct ProcStat {
    var userTicks: UInt64
    var systemTicks: UInt64
    var startTicks: UInt64
    var virtualBytes: UInt64
    var residentPages: UInt64

    static func read() -> ProcStat? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8) else { return nil }
        return parse(text)
    }

    /// The fields after the command name, which is in parentheses and may hold spaces: they
    /// start after the last `)`. Field 3 (state) is the first; utime is 14, stime 15,
    /// starttime 22, vsize 23, rss 24.
    static func parse(_ text: String) -> ProcStat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        func field(_ number: Int) -> UInt64? {
            let index = number - 3
            return fields.indices.contains(index) ? UInt64(fields[index]) : nil
        }
        guard let user = field(14), let system = field(15), let start = field(22), let virtual = field(23), let resident = field(24) else {
            return nil
        }
        return ProcStat(userTicks: user, systemTicks: system, startTicks: start, virtualBytes: virtual, residentPages: resident)
    }

    /// The boot time, in seconds since the epoch: the `btime` line of `/proc/stat`.
    static func bootTime() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return UInt64(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
