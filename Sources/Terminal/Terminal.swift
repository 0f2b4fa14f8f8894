import Glibc

/// The process's standard streams as terminals: whether one is a person's screen or keyboard
/// rather than a pipe or a file.
public enum Terminal {
    public enum Stream: Sendable {
        case input, output, error

        var descriptor: Int32 {
            switch self {
            case .input: STDIN_FILENO
            case .output: STDOUT_FILENO
            case .error: STDERR_FILENO
            }
        }
    }

    public static func isTerminal(_ stream: Stream) -> Bool {
        isatty(stream.descriptor) != 0
    }
}
