import Foundation

/// A duration as options take it: seconds ("90", "0.5"), or a number with a unit: ms, s, m,
/// h or d ("500ms", "30m", "1h"). One parser for `--backup-every` and `--query-timeout`.
enum DurationText {
    /// The seconds `text` says, or nil when it is not a duration or is negative.
    static func seconds(_ text: String) -> TimeInterval? {
        let units: [(suffix: String, seconds: TimeInterval)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        let unit = units.first { text.hasSuffix($0.suffix) }
        guard let number = TimeInterval(unit.map { String(text.dropLast($0.suffix.count)) } ?? text), number >= 0, number.isFinite else {
            return nil
        }
        return number * (unit?.seconds ?? 1)
    }
}
