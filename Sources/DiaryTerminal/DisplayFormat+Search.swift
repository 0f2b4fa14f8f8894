import DiaryAPI
import Foundation

// MARK: - Search results, tags, markdown export

extension DisplayFormat {
    /// How the `<mark>` of a snippet is shown: bold on a terminal, brackets in a pipe.
    public enum Highlight: Sendable {
        case bold, brackets
    }

    /// One row per result (id, date, title) followed by its snippet, indented.
    public static func searchRows(_ entries: [Entry], highlight: Highlight, style: DisplayStyle = .plain) -> [String] {
        zip(entryRows(entries, style: style), entries).flatMap { row, entry in
            [row] + (entry.snippet.map { ["    " + snippet($0, highlight: highlight)] } ?? [])
        }
    }

    /// A snippet on one line as text: its `<mark>`s shown as `highlight` says, its entities
    /// turned back into the characters they stand for.
    public static func snippet(_ html: String, highlight: Highlight) -> String {
        let (open, close) = highlight == .bold ? ("\u{1B}[1m", "\u{1B}[0m") : ("[", "]")
        let shown = singleLine(html).replacingOccurrences(of: SnippetMarkup.open, with: open).replacingOccurrences(of: SnippetMarkup.close, with: close)
        return SnippetMarkup.unescaped(shown)
    }

    /// "  3  travel", one row per tag, or "no tags yet".
    public static func tagListing(_ list: TagList) -> String {
        guard !list.tags.isEmpty else { return "no tags yet\n" }
        return table(list.tags.map { [String($0.count), singleLine($0.name)] }, rightAligned: [0]).joined(separator: "\n") + "\n"
    }

    /// An entry as a markdown file: a front-matter block (entry_id, diary_id, author, created,
    /// updated, tags, title), then the body.
    public static func markdown(_ entry: Entry) -> String {
        func quoted(_ text: String) -> String {
            let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)
        }
        let lines = [
            "---",
            "entry_id: \(entry.id)",
            "diary_id: \(entry.diaryID)",
            "author: \(quoted(entry.author))",
            "created: \(RFC3339.string(from: entry.created))",
            "updated: \(RFC3339.string(from: entry.updated))",
            "tags: [\(entry.tags.map(quoted).joined(separator: ", "))]",
            "title: \(quoted(entry.title))",
            "---",
            "",
            "",
        ]
        return lines.joined(separator: "\n") + entry.body + (entry.body.hasSuffix("\n") || entry.body.isEmpty ? "" : "\n")
    }
}
