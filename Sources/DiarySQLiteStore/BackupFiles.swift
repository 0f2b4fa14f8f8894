import DurableFiles
import Foundation
import ProcessControl

/// The file operations that make a backup or a restore all-or-nothing: hidden temporary names
/// in the destination's folder (a rename within one file system is atomic), fsync of the file
/// and of its folder (the rename itself is only durable once the folder is), and the SQLite
/// side files that go with a database file.
enum BackupFiles {
    /// The files SQLite keeps beside a database while it is open or after a crash.
    static let sideFileSuffixes = ["-journal", "-wal", "-shm"]

    /// `.NAME.PID.PURPOSE` beside `final`: hidden from a listing of backups, and of this process only.
    static func temporaryPath(for final: URL, purpose: String) -> String {
        final.deletingLastPathComponent()
            .appendingPathComponent(".\(final.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).\(purpose)").path
    }

    /// Removes the temporary files (and their side files) that `temporaryPath` named in
    /// `directory` for finals whose names start with `prefix`, left by a process that is gone:
    /// killed, or crashed, mid-backup. A live process's are its own, under way.
    static func removeAbandonedTemporaries(in directory: URL, prefix: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(".\(prefix)") {
            guard let pid = writerPID(ofTemporary: name), OtherProcess.hasExited(pid) else { continue }
            try? DurableFiles.remove(directory.appendingPathComponent(name).path)
        }
    }

    /// The PID in `.NAME.PID.PURPOSE` (or one of its side files), or nil for any other name.
    static func writerPID(ofTemporary name: String) -> Int32? {
        var base = Substring(name)
        if let suffix = sideFileSuffixes.first(where: { base.hasSuffix($0) }) { base = base.dropLast(suffix.count) }
        let parts = base.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, ["partial", "restoring"].contains(parts[parts.count - 1]) else { return nil }
        return Int32(parts[parts.count - 2])
    }

    /// Removes a database file and its side files, ignoring those that are not there.
    static func remove(sqliteFile path: String) {
        for suffix in [""] + sideFileSuffixes {
            try? DurableFiles.remove(path + suffix)
        }
    }

    /// Whether both paths name one existing file (the same inode), however they are spelt.
    static func areSameFile(_ first: String, _ second: String) -> Bool {
        DurableFiles.areSameFile(first, second)
    }

    static func fsync(path: String) throws(BackupError) {
        do { try DurableFiles.fsync(path: path) } catch { throw BackupError(error.description) }
    }

    /// Renames `source` to `destination` (replacing it) and makes the rename durable.
    static func rename(_ source: String, to destination: String) throws(BackupError) {
        do { try DurableFiles.rename(source, to: destination) } catch { throw BackupError(error.description) }
    }
}
