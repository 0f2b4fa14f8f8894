import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive hold on a database file through the locks SQLite itself takes, so that no
/// SQLite connection, in any process, has the file open while it is held.
///
/// SQLite locks a database with POSIX advisory locks on the bytes from 2^30 (its "pending
/// byte") on: a connection reading or writing holds the shared range, and in WAL mode every
/// open connection holds it for as long as it is open, idle or not. So a write lock on the
/// whole range is granted only when no connection has the file open; and while it is held,
/// a connection opening the file waits on it (and, past its busy timeout, fails) instead of
/// reading a file being replaced. POSIX locks belong to the process and drop with it: a
/// crashed holder never leaves the file locked.
final class DatabaseFileLock {
    /// SQLite's lock bytes: the pending byte, the reserved byte and the 510-byte shared range.
    static let lockRange = (start: off_t(0x4000_0000), length: off_t(512))

    private let descriptor: Int32

    /// Takes the lock on `path` at once, or throws saying which process holds it.
    init(path: String) throws(BackupError) {
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupError("cannot open \(path): \(BackupFiles.systemError())") }
        var request = Self.request(type: F_WRLCK)
        guard fcntl(descriptor, F_SETLK, &request) == 0 else {
            var holder = Self.request(type: F_WRLCK)
            let pid = fcntl(descriptor, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK ? " (process \(holder.l_pid))" : ""
            close(descriptor)
            throw BackupError("\(path) is open in a running diary-server\(pid) or another SQLite program; stop it first")
        }
    }

    /// Releases the lock (closing the descriptor drops this process's locks on the file).
    func release() {
        close(descriptor)
    }

    private static func request(type: Int32) -> flock {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = lockRange.start
        request.l_len = lockRange.length
        return request
    }
}
