import CMicroHTTPD
import Glibc
import HTTPCore
import Synchronization

/// A kept answer's body as a sealed memory file (memfd), which libmicrohttpd sends with
/// `sendfile`: the kernel hands the file's pages to the socket, where a buffer body
/// (`SharedBody`) is copied into it for every request. Made once per kept body (the first
/// time it is sent, `KeptBody.prepared`) and closed when that body is released, once the
/// response cache has dropped it and the last response sending it is done.
///
/// Only bodies of at least `minimumSize`: a file answer costs libmicrohttpd a `dup`, a `close`
/// and a second system call (the headers go first, the file after), which a small body's
/// copy does not repay (docs/photos.md, "Serving").
final class KeptFile: Sendable {
    static let minimumSize = 64 * 1024
    /// Files open at once, at most: past it a kept body goes from memory. Each file holds a
    /// descriptor, and a large `--response-cache` could otherwise keep enough of them to leave
    /// none for the connections (1,024 by default). The default 16 MiB cache holds at most 256
    /// bodies of `minimumSize`.
    static let limit = 256
    private static let openFiles = Atomic<Int>(0)

    private let descriptor: Int32
    private let size: UInt64

    private init(descriptor: Int32, size: Int) {
        self.descriptor = descriptor
        self.size = UInt64(size)
    }

    /// The file of `bytes`, or nil when none could be made (`limit` files open already, no
    /// memfd, out of descriptors): the body is then sent from memory, and the next request
    /// for it tries again.
    static func of(_ bytes: [UInt8]) -> KeptFile? {
        guard openFiles.add(1, ordering: .relaxed).newValue <= limit else {
            openFiles.subtract(1, ordering: .relaxed)
            return nil
        }
        let descriptor = bytes.withUnsafeBytes { diary_sealed_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else {
            openFiles.subtract(1, ordering: .relaxed)
            return nil
        }
        return KeptFile(descriptor: descriptor, size: bytes.count)
    }

    deinit {
        close(descriptor)
        Self.openFiles.subtract(1, ordering: .relaxed)
    }

    /// A libmicrohttpd response sending this file, or nil when `body` is too small to be sent
    /// from one or no file could be made. libmicrohttpd closes the descriptor it is given when
    /// it destroys the response, so each response gets a duplicate of this one: all of them
    /// share the file, and `sendfile` reads it at its own offset, never moving a shared one.
    static func response(_ body: KeptBody) -> OpaquePointer? {
        guard body.bytes.count >= minimumSize, let file = body.prepared(by: KeptFile.of) else { return nil }
        let duplicate = diary_duplicate_descriptor(file.descriptor)
        guard duplicate >= 0 else { return nil }
        guard let response = MHD_create_response_from_fd64(file.size, duplicate) else {
            close(duplicate)
            return nil
        }
        return response
    }
}
