import Foundation
import GRDB

/// Backups of a live SQLite Diary database, their checks, and restoring one in place.
///
/// A backup is SQLite's online backup API run inside one read transaction on the source: in
/// WAL mode a reader never blocks the writer, so the server's writes go on undisturbed (they
/// neither wait nor fail), and the copy is the database as of the transaction's start; with
/// the snapshot held, other connections' commits do not restart the copy. (`VACUUM INTO` would
/// do the same in one statement, but rebuilds the file while the snapshot is held: 0.74 s
/// against 0.47 s on a 242 MB database, docs/operations.md; and it cannot stop half-way.)
///
/// A file appears under its final name only complete and checked: it is written under a
/// hidden temporary name in the same folder, switched to a rollback journal (one self-contained
/// file), checked, fsynced, renamed, and the folder fsynced.
public enum SQLiteBackup {
    /// Pages copied per step: 256 pages of 4 KiB, 1 MiB. The steps all read one snapshot, so
    /// their size changes no one's wait; it bounds the work between two `shouldContinue` calls.
    public static let pagesPerStep: CInt = 256

    /// Copies the database at `database` to `output`, and returns what the copy holds.
    ///
    /// - parameter shouldContinue: asked between steps; false abandons the backup (a server stopping).
    /// - throws: `BackupError` with a one-line reason; no file is then left under `output`
    ///   (an older file there is kept), nor under the temporary name.
    @discardableResult
    public static func backup(database: String, to output: String, shouldContinue: (() -> Bool)? = nil) throws(BackupError) -> DatabaseSummary {
        guard FileManager.default.fileExists(atPath: database) else {
            throw BackupError("no database at \(database)")
        }
        guard !BackupFiles.areSameFile(database, output) else {
            throw BackupError("\(output) is the database itself; back it up to another file")
        }
        let outputURL = URL(fileURLWithPath: output)
        let temporary = BackupFiles.temporaryPath(for: outputURL, purpose: "partial")
        BackupFiles.removeAbandonedTemporaries(in: outputURL.deletingLastPathComponent(), prefix: prefix(of: outputURL))
        BackupFiles.remove(sqliteFile: temporary)
        do {
            let summary = try checkedCopy(of: database, to: temporary, shouldContinue: shouldContinue)
            try BackupFiles.rename(temporary, to: outputURL.path)
            return summary
        } catch {
            BackupFiles.remove(sqliteFile: temporary)
            throw BackupError(error, writing: output)
        }
    }

    /// Copies `source` to the new file `temporary` (`copy`), makes the copy one self-contained
    /// file, checks it and fsyncs it: what backups and restores rename into place.
    static func checkedCopy(of source: String, to temporary: String, shouldContinue: (() -> Bool)? = nil) throws -> DatabaseSummary {
        try copy(database: source, to: temporary, shouldContinue: shouldContinue)
        let report = try DatabaseCheck.check(path: temporary, makingSelfContained: true)
        guard report.isOK, let summary = report.summary else {
            throw BackupError("the copy of \(source) failed its check: \(report.problems.joined(separator: "; "))")
        }
        try BackupFiles.fsync(path: temporary)
        return summary
    }

    /// The start of the names whose abandoned temporary files a backup to `output` removes:
    /// scheduled backups' names differ in their time only, so they share theirs.
    private static func prefix(of output: URL) -> String {
        let name = output.lastPathComponent
        return name.hasPrefix(ScheduledBackups.filePrefix) ? ScheduledBackups.filePrefix : name + "."
    }

    /// The online backup proper: `database`'s snapshot, step by step, into a new file.
    private static func copy(database: String, to temporary: String, shouldContinue: (() -> Bool)?) throws {
        var sourceConfiguration = Configuration()
        // Never writes the live file, nor creates one.
        sourceConfiguration.readonly = true
        sourceConfiguration.busyMode = .timeout(SQLiteDiaryStore.busyTimeout)
        sourceConfiguration.registerDiaryTokenizers()
        let source = try DatabaseQueue(path: database, configuration: sourceConfiguration)
        let destination = try DatabaseQueue(path: temporary)
        try source.inDatabase { from in
            try from.execute(sql: "BEGIN DEFERRED TRANSACTION")
            defer { try? from.execute(sql: "ROLLBACK TRANSACTION") }
            // The first read takes the snapshot every step then copies.
            _ = try Int.fetchOne(from, sql: "SELECT count(*) FROM sqlite_master")
            try destination.writeWithoutTransaction { to in
                try from.backup(to: to, pagesPerStep: pagesPerStep) { _ in
                    // Thrown from the callback, GRDB ends the backup and rethrows it.
                    if shouldContinue?() == false { throw BackupError("stopped before it was complete") }
                }
            }
        }
        try destination.close()
        try source.close()
    }
}

/// A backup, check or restore that failed, in one line that says what and why.
public struct BackupError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }

    /// A failure while making `output`, worded for an operator: SQLite's and the system's
    /// codes for a full disk or a folder that cannot be written become those words.
    init(_ error: any Error, writing output: String) {
        if let error = error as? BackupError {
            self = error
        } else if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            description = "the disk is full: cannot write \(output)"
        } else if let error = error as? DatabaseError, error.resultCode == .SQLITE_CANTOPEN {
            description = "cannot create \(output): its folder is missing or cannot be written"
        } else if let error = error as? DatabaseError {
            description = "cannot write \(output): \(error.message ?? "\(error.resultCode)")"
        } else {
            description = "cannot write \(output): \((error as NSError).localizedDescription)"
        }
    }
}
