import CMicroHTTPD
import Glibc
import HTTPCore

/// A streamed response body as libmicrohttpd pulls it: the chunks of an `HTTPBodyStream`, copied
/// into libmicrohttpd's buffer as it asks. Retained for the response's life and released by
/// `StreamedBody.free`. libmicrohttpd calls one connection's reader from one thread at a time.
final class StreamedBody: @unchecked Sendable {
    private let stream: HTTPBodyStream
    private var pending: [UInt8] = []
    private var offset = 0

    init(_ stream: HTTPBodyStream) {
        self.stream = stream
    }

    /// `MHD_ContentReaderCallback`: at most `max` bytes, or -1 at the end, or -2 when the
    /// stream failed (the connection is closed and the client sees a broken chunked body).
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

    /// A libmicrohttpd response of unknown size (sent chunked) reading `stream`.
    static func response(_ stream: HTTPBodyStream) -> OpaquePointer? {
        let body = Unmanaged.passRetained(StreamedBody(stream)).toOpaque()
        guard let response = MHD_create_response_from_callback(UInt64.max, 64 * 1024, read, body, free) else {
            Unmanaged<StreamedBody>.fromOpaque(body).release()
            return nil
        }
        return response
    }
}
