import CMicroHTTPD
import Glibc

/// The numeric address of a connection's client, as libmicrohttpd accepted it.
enum ClientAddress {
    /// `192.0.2.7` or `2001:db8::1`; nil for another family or when libmicrohttpd does not say.
    static func of(_ connection: OpaquePointer) -> String? {
        guard let address = diary_mhd_client_address(connection) else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var bytes = v4.pointee.sin_addr
                return inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)).map { String(cString: $0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var bytes = v6.pointee.sin6_addr
                return inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)).map { String(cString: $0) }
            }
        default:
            return nil
        }
    }
}
