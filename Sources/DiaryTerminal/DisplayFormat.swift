import DiaryAPI
import Foundation

// MARK: - Display

/// The plain-text views of the `diary` command: no colours, no trailing spaces, one
/// newline-terminated string per view so that output stays clean in pipes.
public enum DisplayFormat {
    /// "2026-11-22 13:30", in the style's time zone (UTC by default).
    public static func date(_ date: Date, style: DisplayStyle = .plain) -> String {
        style.date(date)
    }

    // MARK: Entries

    /// One aligned row per entry: id (right-aligned), created date, title, and `[private]` or
    /// `[unlisted]` after the title of an entry that is not public, so that nobody shares one by mistake.
    public static func entryRows(_ entries: [Entry], style: DisplayStyle = .plain) -> [String] {
        table(entries.map { [String($0.id), date($0.created, style: style), singleLine($0.title) + marker($0, style: style)] }, rightAligned: [0])
    }

    /// "  [private]", "  [unlisted]", or nothing for a public entry.
    public static func visibilityMarker(_ visibility: Visibility) -> String {
        visibility == .public ? "" : "  [\(visibility.rawValue)]"
    }

    /// "  [draft]" for a draft, "  [scheduled 2026-11-26 09:00]" for a scheduled entry (its
    /// time, in the style's zone), each with its visibility once published when that is not
    /// public ("  [draft]  [unlisted]"), else the visibility's marker.
    public static func marker(_ entry: Entry, style: DisplayStyle = .plain) -> String {
        (entry.draft ? "  [draft]" : "") + (entry.scheduled ? "  [scheduled \(date(entry.created, style: style))]" : "")
            + visibilityMarker(entry.visibility)
    }

    /// A page of entries with its footer, or "no entries yet".
    /// `perPage` and `diaryID` are the options the user gave, repeated in the suggested next command.
    public static func entryListing(_ page: EntryPage, perPage: Int? = nil, diaryID: Int64? = nil, style: DisplayStyle = .plain) -> String {
        if page.total == 0 && page.entries.isEmpty {
            return "no entries yet\n"
        }
        var lines = entryRows(page.entries, style: style)
        if page.entries.isEmpty {
            lines.append("no entries on page \(page.page)")
        }
        lines.append(pageFooter(page, perPage: perPage, diaryID: diaryID))
        return lines.joined(separator: "\n") + "\n"
    }

    /// "page 1 of 3 · 57 entries · next: diary list --page 2" (no "next" on the last page).
    public static func pageFooter(_ page: EntryPage, perPage: Int? = nil, diaryID: Int64? = nil) -> String {
        var parts = [
            "page \(page.page) of \(pageCount(total: page.total, perPage: page.perPage))\(page.totalIsEstimate ? "+" : "")",
            count(page, "entry", "entries"),
        ]
        if let next = page.nextPage {
            parts.append("next: " + listCommand(page: next, perPage: perPage, diaryID: diaryID))
        }
        return parts.joined(separator: " · ")
    }

    /// The number of pages `total` items fill, at least 1.
    public static func pageCount(total: Int, perPage: Int) -> Int {
        guard perPage > 0, total > 0 else { return 1 }
        return (total - 1) / perPage + 1
    }

    /// "diary list --page 2 --per-page 10 --diary 3", with only the options given.
    public static func listCommand(page: Int, perPage: Int? = nil, diaryID: Int64? = nil) -> String {
        var words = ["diary", "list", "--page", String(page)]
        if let perPage { words += ["--per-page", String(perPage)] }
        if let diaryID { words += ["--diary", String(diaryID)] }
        return words.joined(separator: " ")
    }

    /// Title; "author · created" (and "· edited updated" when it changed); a blank line; the body.
    public static func entryDetail(_ entry: Entry, style: DisplayStyle = .plain) -> String {
        var meta = "\(singleLine(entry.author)) · \(date(entry.created, style: style))"
        if entry.updated != entry.created {
            meta += " · edited \(date(entry.updated, style: style))"
        }
        if entry.draft { meta += " · draft" }
        if entry.scheduled { meta += " · [scheduled \(date(entry.created, style: style))]" }
        if entry.visibility != .public {
            meta += " · \(entry.visibility.rawValue)"
        }
        var text = singleLine(entry.title) + "\n" + meta + "\n"
        if !entry.body.isEmpty {
            text += "\n" + entry.body + (entry.body.last?.isNewline == true ? "" : "\n")
        }
        return text
    }

    // MARK: Diaries and users

    /// One aligned row per diary: id, owner, entry count, the visibility of new entries, title.
    public static func diaryRows(_ diaries: [Diary]) -> [String] {
        table(
            diaries.map {
                [String($0.id), singleLine($0.owner), count($0.entryCount, "entry", "entries"), "new: \($0.defaultVisibility.rawValue)",
                 singleLine($0.title)]
            },
            rightAligned: [0, 2]
        )
    }

    /// The diary rows, or "no diaries yet".
    public static func diaryListing(_ list: DiaryList) -> String {
        list.diaries.isEmpty ? "no diaries yet\n" : diaryRows(list.diaries).joined(separator: "\n") + "\n"
    }

    /// "alice (user 7)"
    public static func user(_ user: User) -> String {
        "\(singleLine(user.name)) (user \(user.id))\n"
    }

    // MARK: Helpers

    /// "1 entry", "57 entries".
    public static func count(_ n: Int, _ singular: String, _ plural: String) -> String {
        "\(n) \(n == 1 ? singular : plural)"
    }

    /// "1 entry", "57 entries", or "1,000+ entries" when the page's total is an estimate.
    public static func count(_ page: EntryPage, _ singular: String, _ plural: String) -> String {
        "\(page.totalText) \(page.total == 1 && !page.totalIsEstimate ? singular : plural)"
    }

    /// Columns separated by two spaces, padded to the widest cell as a terminal measures it (CJK
    /// characters take two columns); the last column is not padded.
    public static func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], DisplayWidth.of(cell)) }
        }
        return rows.map { row in
            row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - DisplayWidth.of(cell))
                if rightAligned.contains(i) { return pad + cell }
                return i == row.count - 1 ? cell : cell + pad
            }.joined(separator: "  ")
        }
    }

    /// Server text made safe for one row: line breaks and other control characters become spaces.
    public static func singleLine(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.append(contentsOf: text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control || scalar.properties.isWhitespace && scalar != " " ? " " : scalar
        })
        return out
    }
}

// MARK: - An entry on a terminal

extension DisplayFormat {
    /// An entry for a person at a terminal `width` columns wide: the title in bold, author,
    /// local date, visibility and tags, a rule, then the body rendered from Markdown.
    public static func entryScreen(
        _ entry: Entry, style: DisplayStyle, width: Int, imageSizes: [String: (width: Int, height: Int)] = [:]
    ) -> [String] {
        var lines = DisplayWidth.wrap(style.bold(singleLine(entry.title)), to: width)
        var meta = "\(singleLine(entry.author)) · \(date(entry.created, style: style))"
        if entry.updated != entry.created { meta += " · edited \(date(entry.updated, style: style))" }
        if entry.draft { meta += " · draft" }
        if entry.scheduled { meta += " · [scheduled \(date(entry.created, style: style))]" }
        if entry.visibility != .public { meta += " · \(entry.visibility.rawValue)" }
        lines += DisplayWidth.wrap(meta, to: width)
        if !entry.tags.isEmpty {
            lines += DisplayWidth.wrap(entry.tags.map { "#" + singleLine($0) }.joined(separator: " "), to: width)
        }
        lines.append(String(repeating: "─", count: min(width, 80)))
        lines += TerminalMarkdown(style: style, width: width, imageSizes: imageSizes).render(entry.body)
        return lines
    }
}
