import Foundation
import GRDB

/// What a Diary database holds, as a backup reports it.
public struct DatabaseSummary: Sendable, Equatable {
    public var users: Int
    public var diaries: Int
    public var entries: Int
    /// The file's size.
    public var bytes: Int64
    /// The schema migrations applied, oldest first ("v1", "v2").
    public var schemaVersions: [String]

    /// "users 3, diaries 6, entries 10000, bytes 12288000": names first, so that no count
    /// needs a plural, and scripts can read it.
    public var description: String {
        "users \(users), diaries \(diaries), entries \(entries), bytes \(bytes)"
    }
}

/// The integrity and schema checks of a Diary database file, for `check`, and for every backup
/// and restore before its file is put in place.
public struct DatabaseCheck: Sendable {
    /// What is wrong, one line each; empty when the file is a sound Diary database.
    public var problems: [String]
    /// What the file holds, when it could be read.
    public var summary: DatabaseSummary?

    public var isOK: Bool { problems.isEmpty }

    /// The tables the rest of the checks and the summary read; a file without them is not a Diary database.
    static let requiredTables = ["users", "diaries", "entries"]

    /// Checks the database at `path`: it opens as SQLite, `PRAGMA integrity_check` and
    /// `foreign_key_check` find nothing, and its schema is Diary's, at a version this binary knows.
    ///
    /// - parameter makingSelfContained: switch the file to a rollback journal first, so that it is
    ///   one file with no -wal beside it (for a file this process made, never a live database).
    public static func check(path: String, makingSelfContained: Bool = false) throws(BackupError) -> DatabaseCheck {
        guard FileManager.default.fileExists(atPath: path) else { throw BackupError("no database at \(path)") }
        var configuration = Configuration()
        configuration.readonly = !makingSelfContained
        configuration.busyMode = .timeout(SQLiteDiaryStore.busyTimeout)
        configuration.registerDiaryTokenizers()
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.inDatabase { db in
                if makingSelfContained { try db.execute(sql: "PRAGMA journal_mode = DELETE") }
                return try check(db, path: path)
            }
        } catch let error as DatabaseError {
            // SQLITE_NOTADB, SQLITE_CORRUPT and the like: the file is not a readable database.
            return DatabaseCheck(problems: ["not a readable SQLite database: \(error.message ?? "\(error.resultCode)")"])
        } catch {
            throw BackupError("cannot check \(path): \(error)")
        }
    }

    private static func check(_ db: Database, path: String) throws -> DatabaseCheck {
        let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
        var problems = integrity == ["ok"] ? [] : integrity.map { "integrity: \($0)" }
        let tables = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        let missing = requiredTables.filter { !tables.contains($0) }
        guard missing.isEmpty else {
            return DatabaseCheck(problems: problems + ["not a Diary database: no table \(missing.joined(separator: ", "))"])
        }
        let migrator = SQLiteDiaryStore.migrator
        let applied = try migrator.appliedIdentifiers(db)
        let unknown = applied.subtracting(migrator.migrations).sorted()
        if !unknown.isEmpty {
            problems.append("schema: \(unknown.joined(separator: ", ")) is newer than this diary-server knows (\(migrator.migrations.joined(separator: ", ")))")
        }
        let foreignKeyViolations = try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_foreign_key_check") ?? 0
        if foreignKeyViolations > 0 { problems.append("foreign keys: \(foreignKeyViolations) rows point at rows that are gone") }
        let summary = DatabaseSummary(
            users: try count(db, "users"), diaries: try count(db, "diaries"), entries: try count(db, "entries"),
            bytes: (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0,
            schemaVersions: try migrator.completedMigrations(db))
        return DatabaseCheck(problems: problems, summary: summary)
    }

    private static func count(_ db: Database, _ table: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
    }
}
