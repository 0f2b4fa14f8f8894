import Glibc

/// What a file call failed with, in the system's words.
public struct FileCallError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }

    /// `strerror` of `code` (errno by default).
    public static func systemError(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}

/// The glibc file calls that make a file's replacement all-or-nothing and durable: fsync of a
/// file and of its folder (a rename is only durable once its folder is), rename, unlink, and
/// whether two paths are one file. Foundation's FileManager has no fsync, and its moves do
/// not sync the folder.
public enum DurableFiles {
    /// Flushes the file or folder at `path` to the disk.
    public static func fsync(path: String) throws(FileCallError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileCallError("cannot open \(path) to sync it: \(FileCallError.systemError())") }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw FileCallError("cannot sync \(path) to disk: \(FileCallError.systemError())") }
    }

    /// Renames `source` to `destination` (replacing it, atomically within one file system) and
    /// syncs `destination`'s folder, so that the rename survives a crash.
    public static func rename(_ source: String, to destination: String) throws(FileCallError) {
        guard Glibc.rename(source, destination) == 0 else {
            throw FileCallError("cannot rename \(source) to \(destination): \(FileCallError.systemError())")
        }
        try fsync(path: folder(of: destination))
    }

    /// Removes the file at `path`; one that is not there is not an error.
    public static func remove(_ path: String) throws(FileCallError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileCallError("cannot remove \(path): \(FileCallError.systemError())")
        }
    }

    /// Whether both paths name one existing file (the same device and inode), however they are spelt.
    public static func areSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
