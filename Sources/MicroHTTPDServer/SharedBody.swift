import CMicroHTTPD
import HTTPCore

/// A complete response body lent to libmicrohttpd without copying it: the array is retained
/// until libmicrohttpd destroys the response and calls `SharedBody.release`.
///
/// Why: a kept answer's body is the same array for every request that it answers, and
/// `MHD_RESPMEM_MUST_COPY` had copied it (a malloc and a memcpy of the whole body) for each of
/// them: for the 24 KB list page that made the body copy the largest cost in the server's own
/// code after the kernel's sending (callgrind, docs/performance.md). libmicrohttpd sends the
/// headers and a buffer body together with one `sendmsg` from the buffer itself.
final class SharedBody: Sendable {
    private let bytes: [UInt8]

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// `MHD_ContentReaderFreeCallback`: releases the body once libmicrohttpd is done with it.
    static let release: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<SharedBody>.fromOpaque(cls).release()
    }

    /// A libmicrohttpd response of `body`, which it reads in place until it calls `release`.
    static func response(_ body: [UInt8]) -> OpaquePointer? {
        guard !body.isEmpty else {
            return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        }
        let shared = SharedBody(body)
        // On Linux an array is always one native buffer, which does not move while it is alive
        // and unchanged: `shared` holds it, and nothing can change it through a `let`.
        let start = shared.bytes.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress) }
        let retained = Unmanaged.passRetained(shared).toOpaque()
        guard let response = MHD_create_response_from_buffer_with_free_callback_cls(body.count, start, release, retained) else {
            Unmanaged<SharedBody>.fromOpaque(retained).release()
            return nil
        }
        return response
    }
}
