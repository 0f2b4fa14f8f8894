import ArgumentParser
import DiarySQLiteStore
import Foundation

/// `diary-server backup`: a consistent copy of a live SQLite database, made while a server
/// keeps serving it (`SQLiteBackup`).
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a live SQLite database to a checked backup file, while a server keeps serving it.",
        discussion: "On PostgreSQL, use pg_dump and pg_restore (docs/operations.md)."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The backup file to write; it appears only once complete and checked, replacing any file of that name.")
    var output: String

    func validate() throws {
        try database.requireSQLite(for: "backup")
    }

    func run() throws {
        let started = ContinuousClock.now
        let summary = try reportingFailure { () throws(BackupError) in
            try SQLiteBackup.backup(database: database.database, to: output)
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("backed up \(database.database) to \(output) in \(String(format: "%.2f", seconds)) s: \(summary.description)")
    }
}

extension DatabaseOptions {
    /// Backups, restores and checks are of SQLite files; PostgreSQL has pg_dump and pg_restore.
    func requireSQLite(for command: String) throws {
        guard !isPostgres else {
            throw ValidationError("\(command) is for an SQLite database; on PostgreSQL use pg_dump and pg_restore (docs/operations.md).")
        }
    }
}

/// Runs `body`; a `BackupError` becomes its line on stderr and exit 1.
func reportingFailure<T>(_ body: () throws(BackupError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode.failure
    }
}
