import CalendarTime
import Foundation
import HTTPCore
import HTTPTypes
import Logging

/// The access log (`serve --access-log PATH|-`): one logfmt line per answered request, through
/// swift-log, written by `BufferedLogFile`'s thread.
///
/// A line holds the time, method, route template, status, body bytes, duration, request id
/// and client address, and nothing else: never the raw path or query (a query may hold a
/// token), a header (`Authorization`), or a body.
public final class AccessLog: Sendable {
    private let logger: Logger
    private let file: BufferedLogFile

    public init(path: String) throws(BufferedLogFile.OpenError) {
        let file = try BufferedLogFile(path: path)
        self.file = file
        logger = Logger(label: "diary.access") { _ in AccessLogHandler(file: file) }
    }

    /// Logs one answer. `bytes` is left out for a streamed body, whose length is not known when
    /// it starts. The line is made here, in the fields' order, and handed to swift-log as the
    /// message: a metadata dictionary per request would cost more and lose the order.
    public func record(request: Request, response: Response, id: String, duration: Duration) {
        var line = Logfmt()
        line.append("time", Self.timestamp())
        line.append("method", request.method.rawValue)
        line.append("route", response.route ?? RequestMetrics.unmatchedRoute)
        line.append("status", String(response.status.code))
        if response.stream == nil { line.append("bytes", String(response.body.count)) }
        line.append("duration", Self.seconds(duration))
        line.append("id", id)
        line.append("client", request.clientAddress ?? "-")
        logger.info("\(line.text)")
    }

    /// Lines dropped because the disk fell behind.
    public var droppedLines: Int { file.droppedLines }

    /// Writes every line logged so far and closes the file.
    public func close() {
        file.close()
    }

    /// UTC with milliseconds (`2026-11-25T08:55:01.123Z`).
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let time = CalendarTime(secondsSince1970: now.tv_sec)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = now.tv_nsec / 1_000_000
        let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(time.year)-\(two(time.month))-\(two(time.day))T\(two(time.hour)):\(two(time.minute)):\(two(time.second)).\(fraction)Z"
    }

    /// Seconds with microseconds (`0.000412`).
    static func seconds(_ duration: Duration) -> String {
        let microseconds = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let fraction = String(microseconds % 1_000_000)
        return "\(microseconds / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
