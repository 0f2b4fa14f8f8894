import Foundation

/// How the `diary` command shows what the server sends: in which time zone dates are read,
/// and whether bold and colour may be used.
public struct DisplayStyle: Sendable, Equatable {
    /// Dates are shown in this zone; the server's own are UTC (JSON output stays as sent).
    public var timeZone: TimeZone
    /// Escape sequences for bold and colour: only on a terminal, and never with `NO_COLOR`.
    public var color: Bool

    public init(timeZone: TimeZone, color: Bool) {
        self.timeZone = timeZone
        self.color = color
    }

    /// UTC and no colour: what a pipe gets with `--utc`, and what tests compare.
    public static let plain = DisplayStyle(timeZone: TimeZone(identifier: "UTC")!, color: false)

    /// The style a run asked for: the local zone (`TZ`) unless `utc`; colour when the output is a
    /// terminal, unless `noColor` or `NO_COLOR` is set to anything (no-color.org).
    public static func resolve(utc: Bool, noColor: Bool, outputIsTerminal: Bool, environment: [String: String]) -> DisplayStyle {
        let colorRefused = noColor || environment["NO_COLOR"].map { !$0.isEmpty } == true
        return DisplayStyle(timeZone: utc ? plain.timeZone : TimeZone.current, color: outputIsTerminal && !colorRefused)
    }

    /// "2026-11-22 13:30" in this style's zone.
    public func date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    /// The first and last second of the day `text` (`2026-11-01`) in this style's zone, or nil
    /// when `text` is not a plain date.
    public func day(_ text: String) -> (start: Date, end: Date)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else {
            return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard calendar.date(from: components).map({ calendar.dateComponents([.year, .month, .day], from: $0) == components }) == true,
              let start = calendar.date(from: components),
              let next = calendar.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return (start, next - 1)
    }

    /// `text` in bold when colour is on.
    public func bold(_ text: String) -> String {
        color ? "\u{1B}[1m" + text + "\u{1B}[0m" : text
    }
}
