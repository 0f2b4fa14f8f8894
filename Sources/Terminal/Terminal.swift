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

    /// The window's size in columns and rows (`TIOCGWINSZ`), or nil when `stream` is no terminal.
    public static func size(of stream: Stream = .output) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(stream.descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
