// MARK: - Entry text

/// An entry as plain text, the way a person writes it in an editor or pipes it in:
/// the first line is the title, then a blank line, then the body.
///
/// ```
/// # A good day
///
/// We went to the sea.
/// ```
public enum EntryText {
    public struct Parts: Sendable, Equatable {
        public var title: String
        public var body: String

        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// Splits `text` into title and body. Blank lines before the title are skipped; the first
    /// line, trimmed, is the title (without a Markdown heading marker such as `# ` when
    /// `stripsHeading`); the body is the rest without its leading blank lines and trailing white space.
    /// Line breaks may be `\n` or `\r\n`; the body's own line breaks are kept as written.
    public static func parse(_ text: String, stripsHeading: Bool = true) -> Parts {
        var rest = Substring(text)
        rest = droppingBlankLines(rest)
        let lineEnd = rest.firstIndex(where: \.isNewline) ?? rest.endIndex
        var title = rest[..<lineEnd]
        let body = lineEnd == rest.endIndex ? rest[lineEnd...] : rest[rest.index(after: lineEnd)...]

        if stripsHeading {
            title = headingText(title)
        }
        return Parts(title: trimmed(title), body: trimmingTrailingWhitespace(droppingBlankLines(body)))
    }

    /// The text an editor opens to change an entry: "title\n\nbody\n", or "title\n" when the body is empty.
    public static func compose(title: String, body: String) -> String {
        body.isEmpty ? title + "\n" : title + "\n\n" + body + (body.last?.isNewline == true ? "" : "\n")
    }

    /// A body read from standard input or an editor: trailing white space and line breaks removed.
    public static func cleanBody(_ text: String) -> String {
        trimmingTrailingWhitespace(Substring(text))
    }

    /// Whether `text` holds nothing but white space.
    public static func isBlank(_ text: String) -> Bool {
        text.allSatisfy(\.isWhitespace)
    }

    // MARK: Helpers

    /// `text` without its leading lines that hold only white space; a last line of only white space becomes empty.
    private static func droppingBlankLines(_ text: Substring) -> Substring {
        var rest = text
        while let lineEnd = rest.firstIndex(where: \.isNewline), rest[..<lineEnd].allSatisfy(\.isWhitespace) {
            rest = rest[rest.index(after: lineEnd)...]
        }
        return rest.allSatisfy(\.isWhitespace) ? rest[rest.endIndex...] : rest
    }

    /// "# Title" and "## Title" → "Title"; "#1 thing" stays, as Markdown needs a space after the marks.
    private static func headingText(_ line: Substring) -> Substring {
        let start = line.drop { $0 == " " || $0 == "\t" }
        let afterMarks = start.drop { $0 == "#" }
        guard afterMarks.count < start.count, afterMarks.isEmpty || afterMarks.first!.isWhitespace else {
            return line
        }
        return afterMarks
    }

    private static func trimmed(_ text: Substring) -> String {
        trimmingTrailingWhitespace(text.drop(while: \.isWhitespace))
    }

    private static func trimmingTrailingWhitespace(_ text: Substring) -> String {
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)].isWhitespace {
            end = text.index(before: end)
        }
        return String(text[..<end])
    }
}
