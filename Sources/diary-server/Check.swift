import ArgumentParser
import DiarySQLiteStore

/// `diary-server check --database PATH`: the integrity and schema checks, in plain lines; exit
/// 0 only when the file is a sound Diary database.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check an SQLite database or backup file: integrity, foreign keys, and a Diary schema this version knows."
    )

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        try database.requireSQLite(for: "check")
    }

    func run() throws {
        let report = try reportingFailure { () throws(BackupError) in
            try DatabaseCheck.check(path: database.database)
        }
        if let summary = report.summary {
            print("schema: Diary \(summary.schemaVersions.joined(separator: ", "))")
            print("holds: \(summary.description)")
        }
        for problem in report.problems {
            print("problem: \(problem)")
        }
        guard report.isOK else {
            print("\(database.database): \(report.problems.count) problem(s) found")
            throw ExitCode.failure
        }
        print("\(database.database): ok")
    }
}
