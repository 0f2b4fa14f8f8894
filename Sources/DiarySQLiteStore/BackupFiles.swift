import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
            .appendingPathComponent(".\(final.lastPathComponent).\(getpid()).\(purpose)").path
    }

    /// Removes the temporary files (and their side files) that `temporaryPath` named in
    /// `directory` for finals whose names start with `prefix`, left by a process that is gone:
    /// killed, or crashed, mid-backup. A live process's are its own, under way.
    static func removeAbandonedTemporaries(in directory: URL, prefix: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where name.hasPrefix(".\(prefix)") {
            guard let pid = writerPID(ofTemporary: name), kill(pid, 0) != 0 && errno == ESRCH else { continue }
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// The PID in `.NAME.PID.PURPOSE` (or one of its side files), or nil for any other name.
    static func writerPID(ofTemporary name: String) -> pid_t? {
        var base = Substring(name)
        if let suffix = sideFileSuffixes.first(where: { base.hasSuffix($0) }) { base = base.dropLast(suffix.count) }
        let parts = base.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, ["partial", "restoring"].contains(parts[parts.count - 1]) else { return nil }
        return pid_t(parts[parts.count - 2])
    }

    /// Removes a database file and its side files, ignoring those that are not there.
    static func remove(sqliteFile path: String) {
        for suffix in [""] + sideFileSuffixes {
            unlink(path + suffix)
        }
    }

    /// Whether both paths name one existing file (the same inode), however they are spelt.
    static func areSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupError("cannot open \(path) to sync it: \(systemError())") }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw BackupError("cannot sync \(path) to disk: \(systemError())") }
    }

    /// Renames `source` to `destination` (replacing it) and makes the rename durable.
    static func rename(_ source: String, to destination: String) throws {
        guard Glibc.rename(source, destination) == 0 else {
            throw BackupError("cannot rename \(source) to \(destination): \(systemError())")
        }
        try fsync(path: URL(fileURLWithPath: destination).deletingLastPathComponent().path)
    }

    static func systemError(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
