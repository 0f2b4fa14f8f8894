import HTTPCore
import HTTPTypes

/// The access log (`serve --access-log PATH|-`): one logfmt line per answered request
/// (`AccessLogLine`), written by `BufferedLogFile`'s thread.
///
/// A line holds the time, method, route template, status, body bytes, duration, request id
/// and client address, and nothing else: never the raw path or query (a query may hold a
/// token), a header (`Authorization`), or a body.
public final class AccessLog: Sendable {
    private let file: BufferedLogFile
    private let clock = LogClock()

    public init(path: String) throws(BufferedLogFile.OpenError) {
        file = try BufferedLogFile(path: path)
    }

    /// Logs one answer. `bytes` is left out for a streamed body, whose length is not known when it starts.
    public func record(request: Request, response: Response, id: RequestID, microseconds: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: AccessLogLine.capacity) { buffer in
            var line = AccessLogLine(buffer)
            line.field("time", clock: clock)
            line.field("method", request.method.rawValue)
            line.field("route", response.route ?? RequestMetrics.unmatchedRoute)
            line.field("status", response.status.code)
            if response.stream == nil { line.field("bytes", response.body.count) }
            line.field("duration", microseconds: microseconds)
            id.withText { line.field("id", bytes: $0) }
            line.field("client", request.clientAddress ?? "-")
            line.end()
            file.append(line.written)
        }
    }

    /// Lines dropped because the disk fell behind.
    public var droppedLines: Int { file.droppedLines }

    /// Writes every line logged so far and closes the file.
    public func close() {
        file.close()
    }
}
