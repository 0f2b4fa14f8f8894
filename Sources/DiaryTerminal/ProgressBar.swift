import Foundation
import Terminal

/// A progress bar on standard error, drawn only when standard error is a terminal.
public struct ProgressBar {
    let total: Int
    let label: String
    private let visible = Terminal.isTerminal(.error)
    private var drawn = false

    public init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    public mutating func update(_ done: Int) {
        guard visible, total > 0 else { return }
        let width = 30, filled = width * min(done, total) / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let line = "\r\(label) [\(bar)] \(done)/\(total)"
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
        drawn = true
    }

    public mutating func finish() {
        if drawn { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
        drawn = false
    }
}
