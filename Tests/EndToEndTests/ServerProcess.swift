import DiaryPostgresStore
import Foundation
import StoreTestSupport
import Testing

/// A real `diary-server` on a free port and a temporary database, stopped when released: an
/// SQLite file, or with `DIARY_TEST_ENGINE=postgres` a fresh PostgreSQL database (`TestEngine`).
final class ServerProcess: @unchecked Sendable {
    /// A folder of the server's own for the SQLite file and anything else a test writes.
    let directory: URL
    /// What `--database` gets: the SQLite file's path or the PostgreSQL database's URL.
    let database: String
    private(set) var url = ""
    private(set) var port = 0
    /// With `--metrics`: the port of the metrics listener, from the second ready line.
    private(set) var metricsPort: Int?

    /// Whether the folder is this server's to remove (not when it shares another's database).
    private let ownsDirectory: Bool
    /// The PostgreSQL database made for this server, held by every server sharing it: it is
    /// dropped once the last of them is released, after that one stopped its process.
    private let postgres: ScratchPostgresDatabase?

    init(extraArguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch TestEngine.current {
        case .sqlite:
            postgres = nil
            database = directory.appendingPathComponent("diary.sqlite3").path
        case .postgres:
            let made = try ScratchPostgresDatabase()
            postgres = made
            database = made.url.description
        }
        ownsDirectory = true
        try start(extraArguments: extraArguments)
    }

    /// Another server process on `other`'s database, as servers behind one proxy would run.
    init(sharingDatabaseOf other: ServerProcess, extraArguments: [String] = []) throws {
        directory = other.directory
        database = other.database
        postgres = other.postgres
        ownsDirectory = false
        try start(extraArguments: extraArguments)
    }

    /// A server on a database it is given, not made for it: a PostgreSQL URL several servers share.
    init(database: String, extraArguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory
        self.database = database
        postgres = nil
        ownsDirectory = false
        try start(extraArguments: extraArguments)
    }

    /// Starts the server on the same database (again, after a stop) and waits for its ready line.
    func start(extraArguments: [String] = []) throws {
        let process = Process()
        process.executableURL = Binaries.server
        process.arguments = ["serve", "--port", "0", "--database", database] + extraArguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        try process.run()
        self.running = process
        // poll(2) before each read, so that a server that neither prints nor exits cannot hold
        // the test past the deadline (a blocking read would wait for it forever).
        let descriptor = out.fileHandleForReading.fileDescriptor
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(30)
        // With --metrics a second line says where the metrics are.
        let lineCount = extraArguments.contains("--metrics") ? 2 : 1
        while bytes.count(where: { $0 == UInt8(ascii: "\n") }) < lineCount {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                kill(process.processIdentifier, SIGKILL)
                throw ServerStartError(message: "no ready line within 30 s")
            }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            guard poll(&entry, 1, Int32(milliseconds)) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { throw ServerStartError(message: "diary-server exited before it was ready") }
            bytes += chunk[..<count]
        }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n")[0]
        guard line.hasPrefix("listening on http://"), let portText = line.split(separator: ":").last, let port = Int(portText) else {
            throw ServerStartError(message: "unexpected first line: \(line)")
        }
        self.url = String(line.dropFirst("listening on ".count))
        self.port = port
        if lineCount == 2 {
            let metricsLine = String(decoding: bytes, as: UTF8.self).split(separator: "\n")[1]
            guard metricsLine.hasPrefix("metrics on http://"), metricsLine.hasSuffix("/metrics"),
                  let portText = metricsLine.dropLast("/metrics".count).split(separator: ":").last, let metricsPort = Int(portText)
            else { throw ServerStartError(message: "unexpected second line: \(metricsLine)") }
            self.metricsPort = metricsPort
        }
    }

    private(set) var running: Process?

    /// Sends `signal` and waits for the exit; returns the exit status. A server still running
    /// 30 s later is a failed test (recorded here), and is killed so that the suite goes on.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard let running, running.isRunning else { return running?.terminationStatus ?? 0 }
        kill(running.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(30)
        while running.isRunning && ContinuousClock.now < deadline {
            usleep(5_000)
        }
        if running.isRunning {
            Issue.record("diary-server did not exit within 30 s of signal \(signal); killed")
            kill(running.processIdentifier, SIGKILL)
        }
        running.waitUntilExit()
        return running.terminationStatus
    }

    /// `diary-server user add NAME` on this server's database: the token it prints.
    func addUser(_ name: String) throws -> String {
        let result = try run(Binaries.server, ["user", "add", name, "--database", database])
        guard result.status == 0 else { throw ServerStartError(message: "user add failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs the `diary` client against this server.
    func diary(_ arguments: [String], token: String? = nil, stdin: String? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
        var env = environment
        env["DIARY_SERVER"] = url
        if let token { env["DIARY_TOKEN"] = token }
        return try run(Binaries.client, arguments, stdin: stdin, environment: env)
    }

    deinit {
        stop(signal: SIGKILL)
        if ownsDirectory {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

struct ServerStartError: Error, CustomStringConvertible {
    var message: String
    var description: String { "diary-server did not start: \(message)" }
}
