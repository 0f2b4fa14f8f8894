/// LIKE patterns that match text literally, with `\` as the escape: PostgreSQL's default, and
/// SQLite's where a statement says `ESCAPE '\'`.
public enum LikePattern {
    /// A pattern matching `term` anywhere in the text.
    public static func containing(_ term: String) -> String {
        "%" + escaped(term) + "%"
    }

    /// `text` with LIKE's `\`, `%` and `_` escaped, to match itself literally.
    public static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
