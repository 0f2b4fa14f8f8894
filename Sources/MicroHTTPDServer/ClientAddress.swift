import Glibc

/// A client's socket address as the text an access log shows (`127.0.0.1`, `::1`).
enum ClientAddress {
    /// The numeric IP address, without the port; nil for no address or another family.
    static func text(of address: UnsafePointer<sockaddr>?) -> String? {
        guard let address else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>? = switch Int32(address.pointee.sa_family) {
        case AF_INET:
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafePointer(to: inet.pointee.sin_addr) { inet_ntop(AF_INET, $0, &buffer, socklen_t(buffer.count)) }
            }
        case AF_INET6:
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                withUnsafePointer(to: inet6.pointee.sin6_addr) { inet_ntop(AF_INET6, $0, &buffer, socklen_t(buffer.count)) }
            }
        default:
            nil
        }
        guard written != nil else { return nil }
        return String(cString: buffer)
    }
}
