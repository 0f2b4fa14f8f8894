/// LIKE patterns that match text literally, with `\` as the escape: PostgreSQL's default, and
/// SQLite's where a statement says `ESCAPE '\'`.
public enum LikePattern {
    /// A pattern matching `term` anywhere in the text.
    public static func containing(_ term: String) -> String {
        "%" + escaped(term) + "%"
    }

    /// `text` with LIKE's `\`, `%` and `_` escaped, to match itself literally. By code point, as
    /// LIKE reads a pattern: a backslash with a combining accent after it is one `Character`,
    /// which is not "\\".
    public static func escaped(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == "%" || scalar == "_" { escaped.append("\\") }
            escaped.append(scalar)
        }
        return String(escaped)
    }
}
