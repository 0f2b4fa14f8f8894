import Foundation

/// A real `diary-server` on a free port and a temporary database, stopped when released.
final class ServerProcess: @unchecked Sendable {
    let directory: URL
    let database: String
    private(set) var url = ""
    private(set) var port = 0

    /// Whether the folder is this server's to remove (not when it shares another's database).
    private let ownsDirectory: Bool

    init(extraArguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("diary-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = directory.appendingPathComponent("diary.sqlite3").path
        ownsDirectory = true
        try start(extraArguments: extraArguments)
    }

    /// A second server process on `other`'s database file, as two servers behind one proxy would run.
    init(sharingDatabaseOf other: ServerProcess) throws {
        directory = other.directory
        database = other.database
        ownsDirectory = false
        try start()
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
        let handle = out.fileHandleForReading
        var buffer = ""
        let deadline = Date().addingTimeInterval(30)
        while !buffer.contains("\n") {
            guard Date() < deadline else { throw ServerStartError(message: "no ready line within 30 s") }
            let data = handle.availableData
            if data.isEmpty { throw ServerStartError(message: "diary-server exited before it was ready") }
            buffer += String(decoding: data, as: UTF8.self)
        }
        let line = buffer.split(separator: "\n")[0]
        guard line.hasPrefix("listening on http://"), let portText = line.split(separator: ":").last, let port = Int(portText) else {
            throw ServerStartError(message: "unexpected first line: \(line)")
        }
        self.url = String(line.dropFirst("listening on ".count))
        self.port = port
    }

    private(set) var running: Process?

    /// Sends `signal` and waits for the exit; returns the exit status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        guard let running, running.isRunning else { return running?.terminationStatus ?? 0 }
        kill(running.processIdentifier, signal)
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
