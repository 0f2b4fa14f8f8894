import Glibc

/// Where and how the server listens, and the limits that keep one client from exhausting it.
/// The defaults change libmicrohttpd's own where they are unsafe (no timeout, no per-IP limit).
public struct HTTPServerConfiguration: Sendable {
    /// An IPv4 or IPv6 address, or a name such as `localhost` (resolved, IPv4 tried first).
    public var host: String
    /// The TCP port; 0 picks a free one, read it back from `HTTPServer.port`.
    public var port: Int
    /// Worker threads. Responders run on them synchronously, except for the requests the
    /// responder says may block (`HTTPResponder.mayBlock`), which run on `blockingThreads`.
    public var threads: Int
    /// The most threads answering requests that may block at once; more such requests wait.
    /// Writes that wait together share an fsync, so this is also the largest group commit.
    public var blockingThreads: Int
    /// The most threads answering requests that may take long (`HTTPResponder.mayTakeLong`)
    /// at once; more such requests wait. The responder bounds how many of them work at once.
    public var longRequestThreads: Int
    /// The largest request body accepted; larger ones get 413 and the connection is closed.
    public var maxBodySize: Int
    /// Seconds a connection may stay idle before it is closed (libmicrohttpd's default is never).
    public var connectionTimeout: Int
    /// Connections open at once, across all clients.
    public var connectionLimit: Int
    /// Connections open at once from one IP address (libmicrohttpd's default is unlimited).
    public var perIPConnectionLimit: Int
    /// Bytes of memory per connection for the request line, headers and read buffer.
    /// Requests whose headers do not fit are answered by libmicrohttpd itself (431 or 414).
    /// 16 KiB, not libmicrohttpd's 32: it zeroes the whole of it after every request on a
    /// keep-alive connection (`MHD_pool_reset`): at 32 KiB that was 49,000 of the 110,000
    /// instructions of serving a kept list page (callgrind), at 16 KiB half as many. 16 KiB still takes the 8 KiB
    /// header lines Apache and nginx accept by default, and a body streams through whatever is left.
    public var connectionMemoryLimit: Int

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        threads: Int = HTTPServerConfiguration.defaultThreadCount,
        blockingThreads: Int = 64,
        longRequestThreads: Int = 32,
        maxBodySize: Int = 2_097_152,
        connectionTimeout: Int = 30,
        connectionLimit: Int = 1024,
        perIPConnectionLimit: Int = 256,
        connectionMemoryLimit: Int = 16 * 1024
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.blockingThreads = blockingThreads
        self.longRequestThreads = longRequestThreads
        self.maxBodySize = maxBodySize
        self.connectionTimeout = connectionTimeout
        self.connectionLimit = connectionLimit
        self.perIPConnectionLimit = perIPConnectionLimit
        self.connectionMemoryLimit = connectionMemoryLimit
    }

    /// One thread per online core, but at least 2 so one slow responder cannot stall every client.
    public static var defaultThreadCount: Int {
        max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
