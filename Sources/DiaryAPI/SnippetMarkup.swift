/// A search result's `snippet` is HTML text: the entry's characters escaped, each match in
/// `<mark>`…`</mark>`. A page can insert it as it is, and a body that holds `<mark>` or
/// `<script>` can pose neither as a match nor as markup.
public enum SnippetMarkup {
    public static let open = "<mark>"
    public static let close = "</mark>"

    private static let entities: [(character: Character, entity: String)] = [
        ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;"),
    ]

    /// `text` with `& < > " '` written as entities.
    public static func escaped(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            if let entity = entities.first(where: { $0.character == character })?.entity {
                out += entity
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The characters escaped text stands for; `&amp;` last, so `&amp;lt;` stays `&lt;`.
    public static func unescaped(_ html: String) -> String {
        var out = html
        for (character, entity) in entities.reversed() {
            out = out.replacingOccurrences(of: entity, with: String(character))
        }
        return out
    }
}
