import DiaryAPI
import DiaryTerminal

// MARK: - The screen

extension BrowserState {
    /// The whole screen: exactly `rows` lines, none wider than `columns` as a terminal counts
    /// them (the last one column narrower, so that writing it never scrolls the screen).
    public func screen() -> [String] {
        var lines: [String]
        if showingHelp {
            lines = [header("keys")] + body(Self.help.map { "  " + $0 })
        } else if let reader {
            let visible = reader.lines.dropFirst(reader.top).prefix(listHeight).map { " " + $0 }
            lines = [header("entry \(reader.entry.id)")] + body(Array(visible))
        } else {
            lines = [header(listing.title)] + body(listRows())
        }
        lines.append(statusLine())
        return lines
    }

    static let help = [
        "↓ j      next entry          ↑ k      previous entry",
        "PgDn ␣   next screen         PgUp b   previous screen",
        "g        first entry         G        last loaded entry",
        "Enter →  open the entry      q Esc ←  back to the list",
        "/        search              Esc      clear the search",
        "r        reload from the top (offline: sync first)",
        "q        quit (on the list)  Ctrl-C   quit",
        "",
        "Any key closes this screen.",
    ]

    private func header(_ title: String) -> String {
        style.bold(DisplayWidth.truncate(" Diary · " + DisplayFormat.singleLine(title), to: columns))
    }

    /// `lines` cut or padded with empty lines to the height between header and status line.
    private func body(_ lines: [String]) -> [String] {
        let shown = lines.prefix(listHeight).map { DisplayWidth.of($0) > columns ? DisplayWidth.truncate($0, to: columns) : $0 }
        return shown + Array(repeating: "", count: listHeight - shown.count)
    }

    private func listRows() -> [String] {
        if entries.isEmpty {
            if !hasLoaded {
                return [pending != nil ? "  loading…" : "  nothing loaded"]
            }
            return [listing.query.map { "  nothing found for \"\(DisplayFormat.singleLine($0))\"" } ?? "  no entries"]
        }
        let first = visibleTop
        var lines = entries[first..<min(entries.count, first + listHeight)].enumerated().map { offset, entry in
            row(entry, selected: first + offset == selected)
        }
        if pending?.cursor != nil { lines.append("  loading more entries…") }
        return lines
    }

    /// "> 2026-11-22 13:30  Title  [private]": the selected row marked with `>`, and in reverse
    /// video when colour is on.
    private func row(_ entry: Entry, selected: Bool) -> String {
        let text = (selected ? "> " : "  ") + DisplayFormat.date(entry.created, style: style) + "  "
            + DisplayFormat.singleLine(entry.title) + DisplayFormat.marker(entry, style: style)
        let fitted = DisplayWidth.truncate(text, to: columns)
        return selected && style.color ? "\u{1B}[7m" + DisplayWidth.pad(fitted, to: columns) + "\u{1B}[0m" : fitted
    }

    /// "http://127.0.0.1:8080 · 3 of 50 · loading…  j/k move …", or the last failure instead.
    private func statusLine() -> String {
        var parts = [sourceName]
        if let reader {
            let last = min(reader.top + listHeight, reader.lines.count)
            parts.append("lines \(reader.top + 1)–\(last) of \(reader.lines.count)")
        } else if !entries.isEmpty {
            parts.append("\(selected + 1) of \(EntryPage.totalText(total, isEstimate: totalIsEstimate))")
        }
        if let pending { parts.append(pending.refresh ? "refreshing…" : hasLoaded && pending.cursor == nil ? "reloading…" : "loading…") }
        let hints = reader != nil ? "Space page  q back  ? keys" : "Enter open  / search  ? keys  q quit"
        // A failure takes the place of everything else: it is what the reader needs to know.
        var text = message.map { " " + DisplayFormat.singleLine($0) } ?? " " + parts.joined(separator: " · ") + "   " + hints
        if let prompt { text = " /" + DisplayFormat.singleLine(prompt) + "▏  Enter search  Esc cancel" }
        let fitted = DisplayWidth.truncate(text, to: columns - 1)
        return style.color ? "\u{1B}[7m" + DisplayWidth.pad(fitted, to: columns - 1) + "\u{1B}[0m" : fitted
    }
}
