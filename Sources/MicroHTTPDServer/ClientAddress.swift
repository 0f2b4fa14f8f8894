import CMicroHTTPD
import Glibc

/// The numeric address of a connection's client, as libmicrohttpd accepted it.
enum ClientAddress {
    /// `192.0.2.7` or `2001:db8::1`; nil for another family or when libmicrohttpd does not say.
    static func of(_ connection: OpaquePointer) -> String? {
        guard let address = diary_mhd_client_address(connection) else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafeBytes(of: v4.pointee.sin_addr) { dottedQuad($0) }
            }
        case AF_INET6:
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var bytes = v6.pointee.sin6_addr
                return inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)).map { String(cString: $0) }
            }
        default:
            return nil
        }
    }

    /// `192.0.2.7`, written by hand: every request reads its address, and inet_ntop with its
    /// buffer cost a cached read about 2,800 instructions (callgrind, `bench/profile list`);
    /// at most 15 bytes, the text fits a Swift string without a heap allocation.
    static func dottedQuad(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 15) { text in
            var count = 0
            for (position, byte) in bytes.prefix(4).enumerated() {
                if position > 0 {
                    text[count] = UInt8(ascii: ".")
                    count += 1
                }
                if byte >= 100 {
                    text[count] = UInt8(ascii: "0") + byte / 100
                    count += 1
                }
                if byte >= 10 {
                    text[count] = UInt8(ascii: "0") + byte / 10 % 10
                    count += 1
                }
                text[count] = UInt8(ascii: "0") + byte % 10
                count += 1
            }
            return count
        }
    }
}
