import ArgumentParser
import DiarySQLiteStore
import Foundation

/// `serve --backup-dir DIR --backup-every 1h --backup-keep 48`: the server's own backups.
struct ScheduledBackupOptions: ParsableArguments {
    @Option(help: "SQLite only: a folder for backups the server takes itself, one at start, then every --backup-every.")
    var backupDir: String?

    @Option(help: "How often to back up into --backup-dir: seconds, or a number with s, m, h or d (30m, 1h).")
    var backupEvery = "1h"

    @Option(help: "How many backups to keep in --backup-dir: the newest.")
    var backupKeep = 48

    /// "90", "90s", "30m", "1h", "2d", "0.5s" in seconds; nil when not a positive duration.
    var interval: TimeInterval? { DurationText.seconds(backupEvery).flatMap { $0 > 0 ? $0 : nil } }

    func validate(database: DatabaseOptions) throws {
        guard backupDir != nil else { return }
        try database.requireSQLite(for: "--backup-dir")
        guard interval != nil else { throw ValidationError("--backup-every must be a positive number of seconds, or one with s, m, h or d (1h).") }
        guard backupKeep >= 1 else { throw ValidationError("--backup-keep must be at least 1.") }
    }

    /// The schedule `--backup-dir` asks for, started; nil without one.
    func start(database: DatabaseOptions) -> ScheduledBackups? {
        guard let backupDir, let interval else { return nil }
        let backups = ScheduledBackups(database: database.database, directory: backupDir, interval: interval, keep: backupKeep) { message in
            FileHandle.standardError.write(Data("diary-server: \(message)\n".utf8))
        }
        backups.start()
        return backups
    }
}
