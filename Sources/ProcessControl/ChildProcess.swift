import Glibc

/// Another program run to its end with this process's terminal, as an editor is.
public enum ChildProcess {
    /// Why the program could not be run or followed, in the system's words.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Runs `arguments` (the first is the program's path) with the terminal inherited, waits, and
    /// returns its exit status (128 + the signal's number when a signal ended it).
    public static func run(_ arguments: [String], environment: [String: String]) throws(Failure) -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], nil, nil, argv, envp)
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
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
}
