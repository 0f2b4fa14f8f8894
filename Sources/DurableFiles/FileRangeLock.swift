import Glibc

/// A POSIX advisory write lock (`fcntl`, `F_SETLK`) on a range of a file's bytes, taken at once
/// or refused. Such locks belong to the process and drop with it (a crashed holder never leaves
/// a file locked), and closing any descriptor of the file drops them too.
public final class FileRangeLock {
    /// Why the lock was not taken.
    public enum Refusal: Error, Sendable {
        /// The file could not be opened for writing: the system's words.
        case cannotOpen(String)
        /// Another process holds a lock on the range: its id, when the system says.
        case held(byProcess: Int32?)
    }

    private let descriptor: Int32

    /// Takes a write lock on `length` bytes of `path` from `start`, or throws at once.
    public init(path: String, start: Int64, length: Int64) throws(Refusal) {
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(FileCallError.systemError()) }
        var request = Self.request(start: start, length: length)
        guard fcntl(descriptor, F_SETLK, &request) == 0 else {
            var holder = Self.request(start: start, length: length)
            let pid = fcntl(descriptor, F_GETLK, &holder) == 0 && holder.l_type != F_UNLCK ? holder.l_pid : nil
            close(descriptor)
            throw .held(byProcess: pid)
        }
    }

    /// Releases the lock (closing the descriptor drops this process's locks on the file).
    public func release() {
        close(descriptor)
    }

    private static func request(start: Int64, length: Int64) -> flock {
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = off_t(start)
        request.l_len = off_t(length)
        return request
    }
}
