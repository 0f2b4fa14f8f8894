import Foundation

/// How the `diary` command shows what the server sends: in which time zone dates are read,
/// and whether bold and colour may be used.
public struct DisplayStyle: Sendable, Equatable {
    /// Dates are shown in this zone; the server's own are UTC (JSON output stays as sent).
    public var timeZone: TimeZone
    /// Escape sequences for bold and colour: only on a terminal, and never with `NO_COLOR`.
    public var color: Bool
    /// Where the site's paths (`/media/…`) point when images are shown as OSC 8 hyperlinks
    /// (terminals that know none show just the text); nil: the plain URL is shown instead.
    public var hyperlinkBase: URL?

    public init(timeZone: TimeZone, color: Bool, hyperlinkBase: URL? = nil) {
        self.timeZone = timeZone
        self.color = color
        self.hyperlinkBase = hyperlinkBase
    }

    /// UTC and no colour: what a pipe gets with `--utc`, and what tests compare.
    public static let plain = DisplayStyle(timeZone: TimeZone(identifier: "UTC")!, color: false)

    /// The style a run asked for: the local zone (`TZ`) unless `utc`; colour when the output is a
    /// terminal, unless `noColor` or `NO_COLOR` is set to anything (no-color.org).
    ///
    /// Hyperlinks to `siteURL` when the output is a terminal whose `TERM` is set and not `dumb`,
    /// unless `DIARY_NO_HYPERLINKS` is set to anything. Terminals do not say whether they know
    /// OSC 8, but those that do not ignore it (xterm, tmux before 3.4, the Linux console): the
    /// text shows either way, only the URL is lost there, hence the opt-out.
    public static func resolve(
        utc: Bool, noColor: Bool, outputIsTerminal: Bool, environment: [String: String], siteURL: URL? = nil
    ) -> DisplayStyle {
        let colorRefused = noColor || environment["NO_COLOR"].map { !$0.isEmpty } == true
        let term = environment["TERM"] ?? ""
        let linksRefused = term.isEmpty || term == "dumb" || environment["DIARY_NO_HYPERLINKS"].map { !$0.isEmpty } == true
        return DisplayStyle(
            timeZone: utc ? plain.timeZone : TimeZone.current, color: outputIsTerminal && !colorRefused,
            hyperlinkBase: outputIsTerminal && !linksRefused ? siteURL : nil
        )
    }

    /// `text` as an OSC 8 hyperlink to `url` (a site path resolved against `hyperlinkBase`), or
    /// nil when this style shows plain URLs.
    public func hyperlink(_ text: String, to url: String) -> String? {
        guard let hyperlinkBase else { return nil }
        var base = hyperlinkBase.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let target = url.hasPrefix("/") ? base + url : url
        // A control character in the URL would end the sequence early: such a link stays plain.
        guard !target.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return "\u{1B}]8;;\(target)\u{1B}\\" + text + "\u{1B}]8;;\u{1B}\\"
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
