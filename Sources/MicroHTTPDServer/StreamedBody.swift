import CMicroHTTPD
import Glibc
import HTTPCore

/// A streamed response body as libmicrohttpd pulls it: the chunks of an `HTTPBodyStream`, copied
/// into libmicrohttpd's buffer as it asks. Retained for the response's life and released by
/// `StreamedBody.free`. libmicrohttpd calls one connection's reader from one thread at a time.
final class StreamedBody: @unchecked Sendable {
    private let stream: HTTPBodyStream
    /// The connection's socket, shut down when the stream fails; -1 when unknown.
    private let socket: Int32
    private var pending: [UInt8] = []
    private var offset = 0

    init(_ stream: HTTPBodyStream, socket: Int32) {
        self.stream = stream
        self.socket = socket
    }

    /// `MHD_ContentReaderCallback`: at most `max` bytes, or -1 at the end, or -2 when the
    /// stream failed (the connection is closed and the client sees a broken chunked body).
    ///
    /// On a failure the socket is also shut down (not closed: libmicrohttpd still owns the
    /// descriptor). libmicrohttpd 0.9.75 marks the connection closed on -2 but, with nothing
    /// else happening on it, left it open until the idle timeout: an export that broke kept its
    /// client waiting 30 s for the rest (`aStreamThatFailsClosesTheConnectionAtOnce`).
    static let read: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return -2 }
        let body = Unmanaged<StreamedBody>.fromOpaque(cls).takeUnretainedValue()
        // 0 bytes would make libmicrohttpd's own threads busy-wait: pull until there is data.
        while body.offset == body.pending.count {
            do {
                guard let chunk = try body.stream.next() else { return -1 }
                body.pending = chunk
                body.offset = 0
            } catch {
                if body.socket >= 0 { _ = shutdown(body.socket, Int32(SHUT_RDWR)) }
                return -2
            }
        }
        let count = min(max, body.pending.count - body.offset)
        body.pending.withUnsafeBytes { bytes in
            _ = memcpy(buffer, bytes.baseAddress! + body.offset, count)
        }
        body.offset += count
        return count
    }

    /// `MHD_ContentReaderFreeCallback`: releases the body once libmicrohttpd is done with it.
    static let free: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        Unmanaged<StreamedBody>.fromOpaque(cls).release()
    }

    /// A libmicrohttpd response of unknown size (sent chunked) reading `stream`, for `connection`.
    static func response(_ stream: HTTPBodyStream, on connection: OpaquePointer) -> OpaquePointer? {
        let socket = diary_mhd_connection_socket(connection)
        let body = Unmanaged.passRetained(StreamedBody(stream, socket: socket)).toOpaque()
        guard let response = MHD_create_response_from_callback(UInt64.max, 64 * 1024, read, body, free) else {
            Unmanaged<StreamedBody>.fromOpaque(body).release()
            return nil
        }
        return response
    }
}
