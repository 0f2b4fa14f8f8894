import Glibc

/// A new file that only this user may read, with a name nobody could have guessed or taken
/// before it was made (`mkstemps`), for text in transit such as an editor's draft.
public enum PrivateFile {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Creates `DIRECTORY/PREFIX-XXXXXX.SUFFIX` holding `bytes` and returns its path.
    public static func create(in directory: String, prefix: String, suffix: String, holding bytes: [UInt8]) throws(Failure) -> String {
        var template = Array((directory + "/\(prefix)-XXXXXX.\(suffix)").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count + 1)) }
        guard fd >= 0 else {
            throw Failure(description: "cannot create a file in \(directory): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw Failure(description: "cannot write \(path): \(reason)")
            }
            offset += written
        }
        return path
    }
}
