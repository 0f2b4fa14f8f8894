import Foundation
import Testing

/// A real terminal of a fixed size (a tmux session) running a command, read with
/// `capture-pane` and driven with `send-keys`. Every wait is a poll with a deadline.
final class Tmux {
    /// A tmux server of this terminal's own (`-L`), ended with it.
    let socket = "diary-test-\(UUID().uuidString.prefix(8))"

    /// Starts `command` (run by the shell) in a new `columns` × `rows` window.
    init(_ command: String, columns: Int = 80, rows: Int = 24, environment: [String: String] = [:]) throws {
        let exports = environment.map { "export \($0.key)=\(Self.quoted($0.value)); " }.joined()
        // The server tmux starts here outlives the command: its output must not be a pipe that
        // a reader waits on to close.
        let status = try control(["new-session", "-d", "-s", "main", "-x", "\(columns)", "-y", "\(rows)", exports + command])
        try #require(status == 0, "tmux did not start (status \(status))")
    }

    deinit {
        _ = try? control(["kill-server"])
    }

    /// The screen as text, one string per row (`-e`: with escape sequences).
    func screen(escapes: Bool = false) throws -> String {
        try run(Tmux.tmux, ["-L", socket, "capture-pane", "-p", "-t", "main"] + (escapes ? ["-e"] : []), seconds: 10).stdout
    }

    /// Runs a tmux command with its output thrown away; returns its exit status. The server
    /// tmux forks outlives the command, so it must hold none of this process's descriptors (a
    /// pipe another test reads to its end would never end): they are closed before tmux starts.
    private func control(_ arguments: [String]) throws -> Int32 {
        // The test runner's threads block most signals, and a blocked mask survives exec: tmux
        // and the programs in its panes would then never see the SIGHUP that kill-server sends,
        // and would outlive the test. The mask is cleared before tmux starts.
        let closeAndExec = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); os.closerange(3, 65536); os.execv(sys.argv[1], sys.argv[1:])"
        let fullArguments = ["-c", closeAndExec, Tmux.tmux.path, "-L", socket] + arguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = fullArguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits until the screen shows what `condition` looks for; fails with the screen after `seconds`.
    @discardableResult
    func waitFor(_ what: String, seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation, _ condition: (String) -> Bool) throws -> String {
        let deadline = Date() + seconds
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            usleep(50_000)  // the poll's interval, not a wait for something to happen
        }
        Issue.record("the screen never showed \(what) within \(seconds) s:\n\(last)", sourceLocation: sourceLocation)
        return last
    }

    /// Appends everything the pane's program writes from now on, escapes and all, to `file`:
    /// what was drawn and then erased, which `capture-pane` can no longer see.
    func record(to file: URL) throws {
        _ = try control(["pipe-pane", "-o", "-t", "main", "cat >> \(Self.quoted(file.path))"])
    }

    /// Runs `command` with everything it writes recorded to `file` (`record`): the shell waits
    /// for Enter until the recording is on, so that nothing is written before it.
    static func recording(_ command: String, to file: URL, columns: Int = 80, rows: Int = 24, environment: [String: String] = [:]) throws -> Tmux {
        let tmux = try Tmux("read go; " + command, columns: columns, rows: rows, environment: environment)
        try tmux.record(to: file)
        try tmux.send("Enter")
        return tmux
    }

    func send(_ keys: String...) throws {
        _ = try control(["send-keys", "-t", "main"] + keys)
    }

    /// Resizes the window; the program in it gets SIGWINCH.
    func resize(columns: Int, rows: Int) throws {
        _ = try control(["resize-window", "-t", "main", "-x", "\(columns)", "-y", "\(rows)"])
    }

    static let tmux = URL(fileURLWithPath: "/usr/bin/tmux")

    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
