import CMicroHTTPD
import Glibc
import HTTPCore
import TCPSockets
import Synchronization

/// Why the server could not start, in words fit for a log line
/// ("cannot listen on 127.0.0.1:8080: Address already in use (bind)").
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Serves an `HTTPResponder` with libmicrohttpd: a pool of epoll worker threads, each calling the
/// responder synchronously. Start once; `shutdown` lets requests in flight finish first.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    /// Held through `start` and `shutdown` as a whole, so a second caller waits for the first to finish.
    private let lifecycle = Mutex<Lifecycle>(.idle)
    private let boundPort = Atomic<Int>(0)

    private enum Lifecycle {
        case idle
        case running(RunningDaemon)
        case stopped
    }

    /// The daemon and what must outlive it. libmicrohttpd allows quiesce and stop from any one
    /// thread, and the lifecycle lock makes sure only one thread does.
    private struct RunningDaemon: @unchecked Sendable {
        var daemon: OpaquePointer
        var context: DaemonContext
    }

    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
    }

    deinit {
        shutdown(gracePeriod: .zero)
    }

    /// The port actually bound (useful with port 0); 0 before `start()` succeeded.
    public var port: Int {
        boundPort.load(ordering: .acquiring)
    }

    /// Requests read but not yet answered, for tests and shutdown.
    var inFlightRequestCount: Int {
        lifecycle.withLock { lifecycle in
            if case .running(let running) = lifecycle { running.context.inFlight.load(ordering: .acquiring) } else { 0 }
        }
    }

    /// Binds the socket and starts the worker threads; returns once the server accepts connections.
    /// Block termination signals before this (see `TerminationSignals.block()` in ProcessControl): the workers inherit the mask.
    public func start() throws(HTTPServerError) {
        try lifecycle.withLock { (lifecycle: inout Lifecycle) throws(HTTPServerError) in
            switch lifecycle {
            case .running: throw HTTPServerError("the server is already running")
            case .stopped: throw HTTPServerError("the server was shut down; create a new one")
            case .idle: break
            }
            try validate(configuration)
            let socket: ListeningSocket.Bound
            do throws(ListeningSocket.Failure) {
                socket = try ListeningSocket.open(host: configuration.host, port: configuration.port)
            } catch {
                throw HTTPServerError(error.description)
            }
            let context = DaemonContext(
                responder: responder, maxBodySize: configuration.maxBodySize, blockingThreads: configuration.blockingThreads,
                longRequestThreads: configuration.longRequestThreads
            )
            guard let daemon = startDaemon(listening: socket.descriptor, context: context) else {
                let code = errno
                close(socket.descriptor)
                throw HTTPServerError("cannot start libmicrohttpd on \(configuration.host):\(socket.port): \(String(cString: strerror(code)))")
            }
            boundPort.store(socket.port, ordering: .releasing)
            lifecycle = .running(RunningDaemon(daemon: daemon, context: context))
        }
    }

    /// Stops accepting connections, waits until the requests in flight are answered or `gracePeriod`
    /// ran out, then closes every connection. Idempotent; a no-op before `start()`.
    /// A responder still running at the deadline is waited for anyway (its thread must be joined).
    public func shutdown(gracePeriod: Duration = .seconds(10)) {
        lifecycle.withLock { lifecycle in
            guard case .running(let running) = lifecycle else { return }
            lifecycle = .stopped
            running.context.draining.store(true, ordering: .relaxed)
            // Quiesce (not stop at once, which drops requests in flight); shutting the socket down
            // makes the kernel refuse new connections now instead of letting them wait in the backlog.
            let listener = MHD_quiesce_daemon(running.daemon)
            if listener >= 0 {
                _ = Glibc.shutdown(listener, Int32(SHUT_RDWR))
            }
            let deadline = ContinuousClock.now + gracePeriod
            while running.context.inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
                usleep(5_000)
            }
            // Stopping libmicrohttpd with a connection still suspended is undefined behaviour:
            // the requests on the blocking pool are let finish whatever the deadline.
            while running.context.suspended.load(ordering: .acquiring) > 0 {
                usleep(1_000)
            }
            MHD_stop_daemon(running.daemon)
            // Closed only now: worker threads may use the socket until stop returned.
            if listener >= 0 {
                close(listener)
            }
        }
    }

    private func validate(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) {
        func check(_ condition: Bool, _ problem: String) throws(HTTPServerError) {
            if !condition { throw HTTPServerError("invalid configuration: \(problem)") }
        }
        try check((0...65535).contains(configuration.port), "port \(configuration.port) is not in 0...65535")
        try check(configuration.threads >= 1, "threads must be at least 1")
        try check(configuration.blockingThreads >= 1, "blockingThreads must be at least 1")
        try check(configuration.longRequestThreads >= 1, "longRequestThreads must be at least 1")
        try check(configuration.maxBodySize >= 0, "maxBodySize must not be negative")
        try check(configuration.connectionTimeout >= 0, "connectionTimeout must not be negative")
        try check(configuration.connectionLimit >= 1, "connectionLimit must be at least 1")
        try check(configuration.perIPConnectionLimit >= 0, "perIPConnectionLimit must not be negative")
        try check(configuration.connectionMemoryLimit >= 4096, "connectionMemoryLimit must be at least 4096")
        let limits = [configuration.threads, configuration.connectionTimeout, configuration.connectionLimit, configuration.perIPConnectionLimit]
        try check(limits.allSatisfy { $0 <= Int(UInt32.max) }, "a limit does not fit in 32 bits")
    }

    /// `MHD_start_daemon` is variadic, which Swift cannot call: the options go through
    /// `MHD_start_daemon_va` as one `MHD_OPTION_ARRAY`.
    private func startDaemon(listening descriptor: Int32, context: DaemonContext) -> OpaquePointer? {
        func option(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutableRawPointer? = nil) -> MHD_OptionItem {
            MHD_OptionItem(option: option, value: value, ptr_value: pointer)
        }
        // Options taking a function and a closure want the function as the `intptr_t`.
        func callback<Function>(_ option: MHD_OPTION, _ function: Function, _ pointer: UnsafeMutableRawPointer?) -> MHD_OptionItem {
            MHD_OptionItem(option: option, value: unsafeBitCast(function, to: Int.self), ptr_value: pointer)
        }
        var options = [
            option(.LISTEN_SOCKET, Int(descriptor)),
            option(.THREAD_POOL_SIZE, configuration.threads),
            option(.CONNECTION_TIMEOUT, configuration.connectionTimeout),
            option(.CONNECTION_LIMIT, configuration.connectionLimit),
            option(.PER_IP_CONNECTION_LIMIT, configuration.perIPConnectionLimit),
            option(.CONNECTION_MEMORY_LIMIT, configuration.connectionMemoryLimit),
            // HTTP/1.1 without Host, or spaces in the target, get 400 from libmicrohttpd.
            option(.STRICT_FOR_CLIENT, 1),
            callback(.URI_LOG_CALLBACK, DaemonCallbacks.requestStarted, context.opaque),
            callback(.NOTIFY_COMPLETED, DaemonCallbacks.requestCompleted, context.opaque),
            callback(.UNESCAPE_CALLBACK, DaemonCallbacks.keepEscaped, nil),
            option(.END, 0),
        ]
        // No MHD_USE_ERROR_LOG: libmicrohttpd stays silent rather than print what clients sent.
        // MHD_USE_TURBO: optimistic reads and writes before epoll says the socket is ready, which
        // saves a wait per request on keep-alive connections (one entry +9 to +34 %, list page 1
        // +20 % and more, wrk on 2 cores, same run).
        // MHD_ALLOW_SUSPEND_RESUME: requests that may block are answered off the workers (see `BlockingPool`).
        let flags = MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_USE_ITC.rawValue | MHD_USE_TURBO.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        return options.withUnsafeMutableBufferPointer { items in
            withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                MHD_start_daemon_va(flags, 0, nil, nil, DaemonCallbacks.accessHandler, context.opaque, arguments)
            }
        }
    }
}
