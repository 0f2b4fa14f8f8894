import Foundation
import DurableFiles

extension SQLiteBackup {
    /// Puts the backup `file` in place as the database at `database`, and returns what it holds.
    ///
    /// The file is checked (integrity and schema), copied beside the database under a temporary
    /// name through SQLite (so that a -wal beside the file counts), and the copy checked again:
    /// what is checked is what goes in place. Then, holding SQLite's
    /// locks on both the old file and the copy (`DatabaseFileLock`: refused when a server has
    /// the old one open, and no server can open either meanwhile), the copy is renamed over the
    /// database and the old file's -wal, -shm and -journal are removed: they belong to the old
    /// file, and SQLite would replay an old WAL into the new one.
    ///
    /// - throws: `BackupError`; the database is then as it was.
    @discardableResult
    public static func restore(_ file: String, to database: String) throws(BackupError) -> DatabaseSummary {
        let original = try DatabaseCheck.check(path: file)
        guard original.isOK else {
            throw BackupError("\(file) is not a sound Diary database: \(original.problems.joined(separator: "; "))")
        }
        guard !BackupFiles.areSameFile(file, database) else { throw BackupError("\(file) is the database itself") }
        let databaseURL = URL(fileURLWithPath: database)
        let temporary = BackupFiles.temporaryPath(for: databaseURL, purpose: "restoring")
        BackupFiles.removeAbandonedTemporaries(in: databaseURL.deletingLastPathComponent(), prefix: databaseURL.lastPathComponent + ".")
        BackupFiles.remove(sqliteFile: temporary)
        do {
            try SQLiteDiaryStore.createParentDirectory(of: database)
            let summary = try checkedCopy(of: file, to: temporary)
            try replace(database, with: temporary)
            return summary
        } catch {
            BackupFiles.remove(sqliteFile: temporary)
            throw BackupError(error, writing: database)
        }
    }

    /// Renames `temporary` over `database` under both files' locks, then removes the old side files.
    private static func replace(_ database: String, with temporary: String) throws {
        let newFileLock = try DatabaseFileLock(path: temporary)
        defer { newFileLock.release() }
        let oldFileLock = FileManager.default.fileExists(atPath: database) ? try DatabaseFileLock(path: database) : nil
        defer { oldFileLock?.release() }
        try BackupFiles.rename(temporary, to: database)
        for suffix in BackupFiles.sideFileSuffixes {
            do {
                try DurableFiles.remove(database + suffix)
            } catch {
                throw BackupError("restored \(database), but the old side file stays: \(error)")
            }
        }
    }
}
