import Glibc

/// A connected TCP stream with send and receive time limits, for a client's one exchange.
/// Not shared between threads. The HTTP on top of it is the caller's.
public struct ClientSocket: Sendable {
    private let descriptor: Int32

    /// Why a socket call failed, sorted into what a person can act on.
    public struct Failure: Error, Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case unknownHost, refused, timedOut, closed, other
        }

        public var kind: Kind
        /// The system's words (`strerror`), for `.other`.
        public var reason: String

        init(_ kind: Kind, reason: String = "") {
            self.kind = kind
            self.reason = reason
        }

        static func from(errno code: Int32) -> Failure {
            switch code {
            case ECONNREFUSED: Failure(.refused)
            case EAGAIN, EWOULDBLOCK, ETIMEDOUT, EINPROGRESS: Failure(.timedOut)
            case ECONNRESET, EPIPE, ECONNABORTED: Failure(.closed)
            default: Failure(.other, reason: String(cString: strerror(code)))
            }
        }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to the first address of `host` that accepts, as getaddrinfo orders them.
    /// `timeout` bounds each wait (connecting, sending, receiving), not the whole exchange.
    public static func connect(host: String, port: UInt16, timeout: Double) throws(Failure) -> ClientSocket {
        try StreamAddresses.withAddresses(
            host: host, port: Int(port), passive: false, failure: { _ in Failure(.unknownHost) }
        ) { (addresses: [addrinfo]) throws(Failure) -> ClientSocket in
            var failure = Failure(.refused)
            for info in addresses {
                let descriptor = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
                guard descriptor >= 0 else {
                    failure = .from(errno: errno)
                    continue
                }
                let socket = ClientSocket(descriptor: descriptor)
                socket.setTimeout(timeout)
                if Glibc.connect(descriptor, info.ai_addr, info.ai_addrlen) == 0 {
                    return socket
                }
                failure = .from(errno: errno)
                socket.close()
            }
            throw failure
        }
    }

    private func setTimeout(_ seconds: Double) {
        let whole = seconds.rounded(.down)
        var limit = timeval(tv_sec: .init(whole), tv_usec: .init((seconds - whole) * 1_000_000))
        if limit.tv_sec == 0 && limit.tv_usec == 0 { limit.tv_usec = 1 }  // zero would mean no limit
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, size)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, size)
    }

    public func sendAll(_ bytes: [UInt8]) throws(Failure) {
        // MSG_NOSIGNAL: a closed peer is an error here, not a SIGPIPE that ends the process.
        let flags = Int32(MSG_NOSIGNAL)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, flags) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .from(errno: errno)
            }
            offset += sent
        }
    }

    /// Up to `capacity` bytes; empty at the end of the stream.
    public func receive(capacity: Int) throws(Failure) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: capacity)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 {
                chunk.removeSubrange(count...)
                return chunk
            }
            if errno != EINTR { throw .from(errno: errno) }
        }
    }

    public func close() {
        _ = Glibc.close(descriptor)
    }
}
