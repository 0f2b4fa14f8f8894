import Glibc

/// `getaddrinfo` for TCP streams, for both the listening socket and the client's.
enum StreamAddresses {
    /// The addresses of `host` and `port` in the resolver's order, handed to `body` while they
    /// are valid (their `ai_addr` points into the resolver's list, freed afterwards).
    /// `failure` turns a resolver status into the caller's error.
    static func withAddresses<T, E: Error>(
        host: String, port: Int, passive: Bool,
        failure: (Int32) -> E,
        _ body: ([addrinfo]) throws(E) -> T
    ) throws(E) -> T {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else { throw failure(status) }
        defer { freeaddrinfo(list) }
        var addresses: [addrinfo] = []
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let info = next {
            addresses.append(info.pointee)
            next = info.pointee.ai_next
        }
        return try body(addresses)
    }
}
