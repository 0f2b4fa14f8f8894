import Foundation
import HTTPTypes

/// `HTTPTransport` for `https://` URLs through the `curl` command.
///
/// On Linux, URLSession is FoundationNetworking on libcurl: merely linking it made every run of
/// `diary` load some thirty libraries, and cost more than a request. The same libcurl behind the
/// `curl` command does TLS (and honours `HTTPS_PROXY`) for the runs that need it, while plain
/// http stays on `SocketTransport`. Secrets never reach curl's arguments, which others can
/// read in `ps`: URL and headers go in a config on its standard input.
struct CurlTransport: HTTPTransport {
    /// Seconds to connect, and seconds without a byte received, before giving up.
    var timeout: Double = 30
    /// The curl to run; nil finds it on `PATH`.
    var executable: String?

    func send(_ request: PreparedRequest) async throws(TransportFailure) -> RawResponse {
        try exchange(request)
    }

    /// The blocking exchange behind `send`.
    func exchange(_ request: PreparedRequest) throws(TransportFailure) -> RawResponse {
        guard let curl = executable ?? Self.findOnPath() else {
            throw TransportFailure(reason: "https:// needs the curl command, which is not installed")
        }
        var bodyFile: URL?
        defer { bodyFile.map { try? FileManager.default.removeItem(at: $0) } }
        if let body = request.body {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("diary-request-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: file.path, contents: body, attributes: [.posixPermissions: 0o600]) else {
                throw TransportFailure(reason: "cannot write the request body to \(file.deletingLastPathComponent().path)")
            }
            bodyFile = file
        }
        let config = try Self.config(for: request, bodyFile: bodyFile)
        let (status, output, errors) = try Self.run(curl, Self.arguments(timeout: timeout), input: Data(config.utf8))
        guard status == 0 else {
            throw Self.failure(exitStatus: status, message: String(decoding: errors, as: UTF8.self))
        }
        // --include writes the head as received, then the body with any chunking undone.
        var reader = SocketTransport.Reader(bytes: Array(output))
        let head = try SocketTransport.readFinalHead(&reader)
        return RawResponse(head: head, body: Data(try reader.readToEnd()))
    }

    // MARK: - Config

    /// curl's config for `request`: one `name = "value"` a line.
    static func config(for request: PreparedRequest, bodyFile: URL?) throws(TransportFailure) -> String {
        guard let url = request.url else { throw TransportFailure(reason: "not an http:// or https:// URL") }
        var lines = ["url = \(quoted(url.absoluteString))"]
        if request.head.method == .head {
            lines.append("head")
        } else {
            lines.append("request = \(quoted(request.head.method.rawValue))")
        }
        // Header values hold no line break: `HTTPField` makes one a space.
        for field in request.head.headerFields {
            lines.append("header = \(quoted("\(field.name.rawName): \(field.value)"))")
        }
        // curl would otherwise wait for "100 Continue" before a large body.
        lines.append("header = \"Expect:\"")
        if let bodyFile {
            lines.append("data-binary = \(quoted("@" + bodyFile.path))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// curl's arguments: nothing of the request, which comes in the config on standard input.
    static func arguments(timeout: Double) -> [String] {
        let seconds = String(Int(timeout.rounded(.up)))
        return [
            "-q",  // first, so that no ~/.curlrc changes the exchange
            "--silent", "--show-error", "--include", "--http1.1", "--suppress-connect-headers",
            "--connect-timeout", seconds, "--speed-limit", "1", "--speed-time", seconds,
            "--config", "-",
        ]
    }

    /// A config value in double quotes, where curl reads backslash escapes.
    static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    // MARK: - Running curl

    private static func findOnPath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { "\($0)/curl" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` with `input` on its standard input; its exit status and both outputs.
    private static func run(_ executable: String, _ arguments: [String], input: Data) throws(TransportFailure) -> (Int32, Data, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            throw TransportFailure(reason: "cannot run \(executable)")
        }
        // curl reads its whole config before it sends anything, so this write cannot block on it.
        try? stdin.fileHandleForWriting.write(contentsOf: input)
        try? stdin.fileHandleForWriting.close()
        // stderr is read on its own thread, so that neither pipe can fill up and stall curl.
        let errors = ErrorsReader(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output, errors.wait())
    }

    /// Reads a pipe to its end on another thread.
    private final class ErrorsReader: @unchecked Sendable {
        // Written once by the reading thread before `done` is signalled; read only after waiting on it.
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }.start()
        }

        func wait() -> Data {
            done.wait()
            return data
        }
    }

    /// The phrase for curl's exit status (see "EXIT CODES" in curl(1)), matching `SocketTransport`'s.
    static func failure(exitStatus: Int32, message: String) -> TransportFailure {
        switch exitStatus {
        case 6: .unknownHost
        case 7: .refused
        case 28: .timedOut
        case 18, 52, 55, 56: .closed
        case 1, 8: .invalid  // 1 is also an answer in HTTP/0.9, that is, no HTTP at all
        case 3: TransportFailure(reason: "not an http:// or https:// URL")
        case 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91, 98: TransportFailure(reason: "the TLS connection failed")
        default:
            // "curl: (N) what went wrong" → "what went wrong"
            if let line = message.split(separator: "\n").first, let close = line.range(of: ") ") {
                TransportFailure(reason: String(line[close.upperBound...]))
            } else {
                TransportFailure(reason: "curl failed with exit status \(exitStatus)")
            }
        }
    }
}
