import DurableFiles

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
    static let lockRange = (start: Int64(0x4000_0000), length: Int64(512))

    private let lock: FileRangeLock

    /// Takes the lock on `path` at once, or throws saying which process holds it.
    init(path: String) throws(BackupError) {
        do {
            lock = try FileRangeLock(path: path, start: Self.lockRange.start, length: Self.lockRange.length)
        } catch {
            switch error {
            case .cannotOpen(let reason):
                throw BackupError("cannot open \(path): \(reason)")
            case .held(let pid):
                let holder = pid.map { " (process \($0))" } ?? ""
                throw BackupError("\(path) is open in a running diary-server\(holder) or another SQLite program; stop it first")
            }
        }
    }

    /// Releases the lock.
    func release() {
        lock.release()
    }
}
