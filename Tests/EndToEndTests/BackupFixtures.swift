import DiaryAPI
import Foundation
import Testing

/// Databases, backups and their comparisons for the backup tests, through the real binaries.
enum BackupFixtures {
    /// Entries in a seeded database: about 10 MB of SQLite file, so that a backup takes long
    /// enough to be caught (and killed) mid-way, and short enough for CI.
    static let seededEntries = 6000

    /// A new database at `path` filled by `diary-server seed`; the tokens of its users.
    static func seed(_ path: String, entries: Int = seededEntries) throws -> [String] {
        let result = try run(Binaries.server, ["seed", "--entries", "\(entries)", "--users", "2", "--database", path])
        guard result.status == 0 else { throw FixtureError("seed failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    static func backup(_ database: String, to output: String) throws -> ProcessResult {
        try run(Binaries.server, ["backup", "--database", database, "--output", output])
    }

    /// `diary export` through `server` as the owner of `token`: each entry's line, by id.
    static func export(_ server: ServerProcess, token: String) throws -> [Int64: String] {
        let result = try server.diary(["export", "--format", "ndjson"], token: token)
        guard result.status == 0 else { throw FixtureError("export failed: \(result.stderr)") }
        var lines: [Int64: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let entry = try JSONDecoder.diary.decode(Entry.self, from: Data(line.utf8))
            lines[entry.id] = String(line)
        }
        return lines
    }

    /// The hidden temporary files in `folder` (backups or restores under way, or abandoned).
    static func temporaries(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
    }

    /// Polls until `folder` holds a hidden `.partial` file (a backup under way), at most `seconds`.
    static func waitForPartial(in folder: URL, seconds: Int = 60) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try temporaries(in: folder).contains(where: { $0.hasSuffix(".partial") }) { return true }
        }
        return false
    }

    /// The bytes of every file in `folder` but the hidden ones, by name: to tell that old backups were left alone.
    static func visibleFiles(in folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            let url = folder.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                do {
                    files[name] = try Data(contentsOf: url)
                } catch CocoaError.fileReadNoSuchFile {
                    // A server keeping its last N backups removed it since the listing.
                }
            }
        }
        return files
    }

    /// `diary-server serve --port 0 ARGUMENTS` with its outputs in files (a test reads what it
    /// logs), once it printed its ready line; the caller stops it.
    static func startServer(_ arguments: [String], output: URL, errors: URL) throws -> (process: Process, port: Int) {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = Binaries.server
        process.arguments = ["serve", "--port", "0"] + arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline && process.isRunning {
            let line = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if line.hasSuffix("\n"), let port = line.split(separator: ":").last.flatMap({ Int($0.dropLast()) }) {
                return (process, port)
            }
        }
        kill(process.processIdentifier, SIGKILL)
        throw FixtureError("diary-server printed no ready line: \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
    }

    /// A seeded database in `folder`, and a folder `backups` beside it holding one backup of
    /// it, `name`: the files' bytes, to tell later that they were left alone.
    static func seededWithOldBackup(in folder: URL, named name: String) throws -> (database: String, backups: URL, before: [String: Data]) {
        let database = folder.appendingPathComponent("live.sqlite3").path
        _ = try seed(database)
        let backups = folder.appendingPathComponent("backups")
        try FileManager.default.createDirectory(at: backups, withIntermediateDirectories: true)
        let made = try backup(database, to: backups.appendingPathComponent(name).path)
        guard made.status == 0 else { throw FixtureError("the old backup failed: \(made.stderr)") }
        return (database, backups, try visibleFiles(in: backups))
    }

    /// Runs `diary-server ARGUMENTS` and SIGKILLs it as soon as a backup's temporary file
    /// appears in `folder`; true when the process was killed by it with the file still there
    /// (mid-backup), false when it took no backup or finished first.
    static func killMidBackup(_ arguments: [String], writingIn folder: URL) throws -> Bool {
        let process = Process()
        process.executableURL = Binaries.server
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.standardError
        try process.run()
        let caught = try waitForPartial(in: folder)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let stillPartial = try temporaries(in: folder).contains { $0.hasSuffix(".partial") }
        return caught && stillPartial && process.terminationReason == .uncaughtSignal
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
