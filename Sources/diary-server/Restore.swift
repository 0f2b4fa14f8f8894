import ArgumentParser
import DiarySQLiteStore

/// `diary-server restore FILE --database PATH`: a checked backup put in place of a database no
/// server has open (`SQLiteBackup.restore`).
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup in place of an SQLite database, once checked; refused while a server has the database open."
    )

    @Argument(help: "The backup file (diary-server backup's, or a scheduled one).")
    var file: String

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        try database.requireSQLite(for: "restore")
    }

    func run() throws {
        let summary = try reportingFailure { () throws(BackupError) in
            try SQLiteBackup.restore(file, to: database.database)
        }
        print("restored \(file) to \(database.database): \(summary.description)")
    }
}
