import Glibc

/// Another program run to its end with this process's terminal, as an editor is.
public enum ChildProcess {
    /// Why the program could not be run or followed, in the system's words.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Runs `arguments` (the first is the program's path) with the terminal inherited, waits, and
    /// returns its exit status (128 + the signal's number when a signal ended it). With `input`,
    /// the program reads those bytes on its standard input (a pager), and a program that stops
    /// reading early (`q` in less) is not an error.
    public static func run(_ arguments: [String], environment: [String: String], input: [UInt8]? = nil) throws(Failure) -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pipeEnds: [Int32] = [-1, -1]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input != nil {
            guard pipe(&pipeEnds) == 0 else {
                throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
            }
            // Neither end may stay open in the program: it would never see the end of its input.
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], STDIN_FILENO)
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        if input != nil { close(pipeEnds[0]) }
        guard spawned == 0 else {
            if input != nil { close(pipeEnds[1]) }
            throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        if let input {
            writeAll(input, to: pipeEnds[1])
            close(pipeEnds[1])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw Failure(description: "lost track of \(arguments[0]): \(String(cString: strerror(errno)))")
            }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Writes until done or the reader went away (EPIPE, with SIGPIPE ignored for the moment).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
