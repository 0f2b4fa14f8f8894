import Glibc

/// Opens a listening socket for a server that takes it over (libmicrohttpd), so that a failure
/// can name its cause (`MHD_start_daemon` only returns NULL) and port 0 can be read back.
public enum ListeningSocket {
    /// A bound, listening, non-blocking socket and the port it got.
    public struct Bound: Sendable {
        public var descriptor: Int32
        public var port: Int
    }

    /// Why no socket could listen: the resolver's or the system's words, and the address.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String

        init(_ description: String) {
            self.description = description
        }
    }

    public static func open(host: String, port: Int) throws(Failure) -> Bound {
        let place = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return try StreamAddresses.withAddresses(
            host: host, port: port, passive: true,
            failure: { status in Failure("cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        ) { (addresses: [addrinfo]) throws(Failure) -> Bound in
            // IPv4 first: "localhost" usually resolves to ::1 as well, and clients mostly try 127.0.0.1.
            let candidates = addresses.sorted { ($0.ai_family == AF_INET ? 0 : 1) < ($1.ai_family == AF_INET ? 0 : 1) }
            var lastError = Failure("cannot listen on \(place): no address found")
            for info in candidates {
                do {
                    return try bind(info)
                } catch let error {
                    lastError = Failure("cannot listen on \(place): \(error)")
                }
            }
            throw lastError
        }
    }

    private struct SystemCallError: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(String(cString: strerror(code))) (\(call))" }
    }

    private static func bind(_ info: addrinfo) throws(SystemCallError) -> Bound {
        let descriptor = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.ai_protocol)
        guard descriptor >= 0 else { throw SystemCallError(call: "socket", code: errno) }
        do throws(SystemCallError) {
            // Lets a restarted server bind while old connections sit in TIME_WAIT.
            var one: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw SystemCallError(call: "setsockopt", code: errno)
            }
            if info.ai_family == AF_INET6 {
                // An IPv6 address means only IPv6, as it reads.
                guard setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                    throw SystemCallError(call: "setsockopt", code: errno)
                }
            }
            guard Glibc.bind(descriptor, info.ai_addr, info.ai_addrlen) == 0 else { throw SystemCallError(call: "bind", code: errno) }
            guard listen(descriptor, SOMAXCONN) == 0 else { throw SystemCallError(call: "listen", code: errno) }
            return Bound(descriptor: descriptor, port: try boundPort(of: descriptor))
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func boundPort(of descriptor: Int32) throws(SystemCallError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { throw SystemCallError(call: "getsockname", code: errno) }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        default:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        }
    }
}
