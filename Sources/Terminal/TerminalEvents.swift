import Glibc

/// What a full-screen program waits for: bytes typed, the window resized, a signal asking it to
/// end, or another thread's `wake()`.
public enum TerminalEvent: Sendable, Equatable {
    case keys([Key])
    case resized
    case terminate(signal: Int32)
    case woken
}

/// The descriptor the signal handler writes to; a handler may touch nothing else.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// Waits on standard input and on a self-pipe that the signal handlers (SIGWINCH, SIGTERM,
/// SIGINT, SIGHUP) and `wake()` write to, so one `poll` sees every event and no handler does
/// more than write a byte. One instance at a time; `close()` puts the default handlers back.
public final class TerminalEvents: @unchecked Sendable {
    static let handled: [Int32] = [SIGWINCH, SIGTERM, SIGINT, SIGHUP]
    private let readEnd: Int32
    private let writeEnd: Int32
    private var decoder = KeyDecoder()
    private var closed = false

    public init() throws(TerminalError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TerminalError(call: "pipe", code: errno) }
        readEnd = ends[0]
        writeEnd = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        signalPipe = writeEnd
        for signal in Self.handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let savedErrno = errno
                var byte = UInt8(truncatingIfNeeded: number)
                _ = Glibc.write(signalPipe, &byte, 1)
                errno = savedErrno
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    /// The pipe closes only here, when nothing can call `wake()` any more: a task still holding
    /// this object must never write into a descriptor number that something else reopened.
    deinit {
        close()
        Glibc.close(readEnd)
        Glibc.close(writeEnd)
    }

    /// Puts the default signal handlers back.
    public func close() {
        guard !closed else { return }
        closed = true
        for signal in Self.handled { Glibc.signal(signal, SIG_DFL) }
        signalPipe = -1
    }

    /// Makes a waiting `next()` return `.woken`; safe from any thread.
    public func wake() {
        var byte: UInt8 = 0
        _ = Glibc.write(writeEnd, &byte, 1)
    }

    /// How long a lone ESC waits for the rest of a sequence before it counts as the Esc key.
    static let escapeWait: Int32 = 30

    /// Blocks until something happens; returns every event that is ready.
    public func next() -> [TerminalEvent] {
        while true {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0), pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return [.terminate(signal: SIGHUP)]
            }
            var events: [TerminalEvent] = []
            if fds[1].revents & Int16(POLLIN) != 0 { events += signalEvents() }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                guard let keys = readKeys() else { return events + [.terminate(signal: SIGHUP)] }
                if !keys.isEmpty { events.append(.keys(keys)) }
            }
            if !events.isEmpty { return events }
        }
    }

    private func signalEvents() -> [TerminalEvent] {
        var buffer = [UInt8](repeating: 0, count: 64)
        var events: [TerminalEvent] = []
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            guard count > 0 else { break }
            for byte in buffer[..<count] {
                let event: TerminalEvent = switch Int32(byte) {
                case 0: .woken
                case SIGWINCH: .resized
                default: .terminate(signal: Int32(byte))
                }
                if !events.contains(event) { events.append(event) }
            }
        }
        return events
    }

    /// The keys in what standard input holds; nil at its end (the terminal went away).
    private func readKeys() -> [Key]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { return nil }
        var keys = decoder.feed(buffer[..<max(count, 0)])
        // A lone ESC is the Esc key unless the rest of a sequence follows at once.
        if decoder.isWaiting {
            var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            if poll(&input, 1, Self.escapeWait) > 0, input.revents & Int16(POLLIN) != 0 {
                let more = read(STDIN_FILENO, &buffer, buffer.count)
                if more > 0 { keys += decoder.feed(buffer[..<more]) }
            }
            keys += decoder.flush()
        }
        return keys
    }
}
