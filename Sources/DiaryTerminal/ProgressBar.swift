import Foundation
import Synchronization
import Terminal

/// A progress bar on standard error, drawn only when standard error is a terminal.
public struct ProgressBar {
    /// What the bar counts: items (`12/40`) or bytes (`1.2/4.0 MB`).
    public enum Units: Sendable {
        case items, bytes
    }

    let total: Int
    let label: String
    let units: Units
    private let visible = Terminal.isTerminal(.error)
    private var drawn = false

    public init(total: Int, label: String, units: Units = .items) {
        self.total = total
        self.label = label
        self.units = units
    }

    public mutating func update(_ done: Int) {
        guard visible, total > 0 else { return }
        let width = 30, filled = width * min(done, total) / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let count = switch units {
        case .items: "\(done)/\(total)"
        case .bytes: "\(Self.megabytes(done))/\(Self.megabytes(total)) MB"
        }
        let line = "\r\(label) [\(bar)] \(count)"
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
        drawn = true
    }

    /// Ends the bar's line, leaving it on screen.
    public mutating func finish() {
        if drawn { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
        drawn = false
    }

    /// Takes the bar off the screen: back to the start of its line, cleared.
    public mutating func erase() {
        if drawn { try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }

    /// "12.3": bytes in MB (10⁶), one decimal.
    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}

/// The bar of one upload's bytes, fed by the client as it sends them (from whichever thread
/// sends) and erased once the body is sent: the command's own output follows on a clean line.
public final class UploadProgressBar: Sendable {
    /// Smaller bodies go in a blink: a bar would only flicker.
    public static let threshold = 1 << 20

    private let bar: Mutex<ProgressBar>

    /// A bar for `bytes`, or nil when the upload is below `threshold`.
    public init?(bytes: Int, label: String) {
        guard bytes >= Self.threshold else { return nil }
        bar = Mutex(ProgressBar(total: bytes, label: label, units: .bytes))
    }

    public func update(sent: Int) {
        bar.withLock { $0.update(sent) }
    }

    public func erase() {
        bar.withLock { $0.erase() }
    }
}
