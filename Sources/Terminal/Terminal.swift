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

    /// Writes `text` to `stream` whole, by `write(2)` itself: again after a signal or a partial
    /// write, and silently no more once the descriptor fails (a pipe its reader closed).
    public static func write(_ text: String, to stream: Stream) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(stream.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// The window's size in columns and rows (`TIOCGWINSZ`), or nil when `stream` is no terminal.
    public static func size(of stream: Stream = .output) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(stream.descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
