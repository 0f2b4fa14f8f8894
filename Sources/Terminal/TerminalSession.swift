import Glibc

/// Why the terminal could not be taken over.
public struct TerminalError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32

    public var description: String {
        "\(call) failed: \(String(cString: strerror(code)))"
    }
}

/// The controlling terminal taken over for a full-screen program: raw input (no echo, no line
/// editing, keys such as Ctrl-C arrive as bytes), the alternate screen and a hidden cursor.
/// `restore()` puts back exactly the settings it found, so the shell's `stty -a` reads the same.
public final class TerminalSession: @unchecked Sendable {
    private var saved: termios
    private var active = true

    public init() throws(TerminalError) {
        var attributes = termios()
        guard tcgetattr(STDIN_FILENO, &attributes) == 0 else { throw TerminalError(call: "tcgetattr", code: errno) }
        saved = attributes
        var raw = attributes
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { throw TerminalError(call: "tcsetattr", code: errno) }
        write(Self.enter)
    }

    deinit { restore() }

    /// The alternate screen, a hidden cursor, and keypad keys as `ESC [` sequences.
    static let enter = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1l"
    static let leave = "\u{1B}[?25h\u{1B}[?1049l"

    /// Leaves the alternate screen and puts the saved settings back; later calls do nothing.
    public func restore() {
        guard active else { return }
        active = false
        write(Self.leave)
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &saved)
    }

    /// Writes `text` to the terminal whole, in one go when the kernel takes it.
    public func write(_ text: String) {
        Terminal.write(text, to: .output)
    }
}
