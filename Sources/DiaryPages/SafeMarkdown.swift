import Ink

/// An entry's Markdown as HTML that is safe to put in a page or a feed, with Ink
/// (JohnSundell/Ink 0.6.0) doing the Markdown and `HTMLSanitizer` having the last word.
///
/// What Ink 0.6.0 does with hostile text, seen on real inputs (see `SafeMarkdownTests`):
///
/// - it **never returns** on a `<p` that no `>` follows anywhere later (`I like <pizza`): the
///   paragraph stops before `<p`, the HTML reader fails, and the same paragraph starts again;
/// - it **traps** (the whole process) on a list whose last line is only spaces (`- a\n  `) and
///   on a first line `---` whose metadata runs to the end of the text (`---\nfoo\n`);
/// - it copies raw HTML, block or inline, through as markup; puts URLs, image descriptions and
///   a code block's language into attributes without escaping quotes (`[a](x" onclick="…)`
///   gives `<a href="x" onclick="…">`); keeps any scheme (`javascript:`, `data:`); and copies
///   text from a `&` to the next `;` untouched.
///
/// So before Ink: every `<` becomes a noncharacter Ink has no syntax for, which takes all HTML
/// away from it (an author's HTML is shown as text, and `<p` cannot hang it); the end of the
/// text loses its trailing white space and gets one line break; and an empty comment, which
/// Ink reads as an HTML block, comes first, so that nothing is read as metadata. After Ink the
/// noncharacter is written back as `&lt;`, and the sanitizer reads the result as a browser
/// would, writing out only allowed elements and attributes, URLs checked by `URLPolicy` after
/// character references are decoded.
public enum SafeMarkdown {
    /// Put first, so that Ink never reads metadata (see above); the modifier removes it again.
    static let guardComment = "<!-- -->"
    /// U+FDD0, a noncharacter: it stands for `<` while Ink reads the text.
    static let lessThan = Unicode.Scalar(0xFDD0)!

    /// - parameter images: the site's own images (`/media/<id>`), the only relative image URLs
    ///   shown, with their sizes.
    public static func html(_ markdown: String, images: SiteImages = SiteImages()) -> String {
        var text = String.UnicodeScalarView()
        text.reserveCapacity(markdown.unicodeScalars.count + 16)
        text.append(contentsOf: guardComment.unicodeScalars)
        text.append("\n")
        var previous: Unicode.Scalar?
        for scalar in markdown.unicodeScalars {
            switch scalar {
            case "<": text.append(lessThan)
            // An author's own noncharacter would come out as `<`.
            case lessThan: text.append("\u{FFFD}")
            case "\n" where previous == "\r": text.removeLast(); text.append("\n")
            default: text.append(scalar)
            }
            previous = scalar
        }
        while let last = text.last, last.properties.isWhitespace { text.removeLast() }
        text.append("\n")
        let parser = MarkdownParser(modifiers: [
            // The guard is the only HTML Ink can meet; anything else would still be shown as text.
            Modifier(target: .html) { input in
                input.markdown == guardComment ? "" : HTMLEscaping.escape(input.markdown)
            },
        ])
        let html = parser.html(from: String(text))
        var restored = String.UnicodeScalarView()
        restored.reserveCapacity(html.unicodeScalars.count + 16)
        for scalar in html.unicodeScalars {
            if scalar == lessThan { restored.append(contentsOf: "&lt;".unicodeScalars) } else { restored.append(scalar) }
        }
        // A refused image without a description leaves an empty paragraph behind.
        return HTMLSanitizer(policy: .body, images: images).sanitize(String(restored)).replacingOccurrences(of: "<p></p>", with: "")
    }

    /// A search snippet (HTML text with `<mark>`, from `SnippetMarkup`) with nothing but text and `<mark>` in it.
    public static func snippet(_ html: String) -> String {
        HTMLSanitizer(policy: .snippet).sanitize(html)
    }

    /// The text of rendered HTML: tags dropped, references decoded, runs of white space made
    /// one space. For excerpts, which are escaped again where they are written.
    public static func plainText(ofHTML html: String) -> String {
        var text = String.UnicodeScalarView()
        var lastWasSpace = true
        var pending = String.UnicodeScalarView()
        func flush() {
            guard !pending.isEmpty else { return }
            for scalar in HTMLEntities.decode(String(pending)).unicodeScalars {
                let space = scalar.properties.isWhitespace
                if space && lastWasSpace { continue }
                text.append(space ? " " : scalar)
                lastWasSpace = space
            }
            pending = String.UnicodeScalarView()
        }
        var tagName: String?
        var readingName = false
        for scalar in html.unicodeScalars {
            if var name = tagName {
                if scalar == ">" {
                    // A block ends a word (`<p>a</p><p>b</p>` reads "a b"); an inline tag does not.
                    if HTMLSanitizer.blockElements.union(["li", "br", "td", "th", "tr"]).contains(name.lowercased()), !lastWasSpace {
                        text.append(" ")
                        lastWasSpace = true
                    }
                    tagName = nil
                } else if readingName, scalar != " ", scalar != "/" || name.isEmpty {
                    if scalar != "/" { name.unicodeScalars.append(scalar) }
                    tagName = name
                } else {
                    readingName = false
                }
            } else if scalar == "<" {
                flush()
                tagName = ""
                readingName = true
            } else {
                pending.append(scalar)
            }
        }
        flush()
        var result = String(text)
        while result.last == " " { result.removeLast() }
        return result
    }

    /// The first `limit` characters of `text`, cut at a space when one is near the end, with `…` when cut.
    public static func excerpt(_ text: String, limit: Int = 140) -> String {
        guard text.count > limit else { return text }
        var cut = text.prefix(limit)
        if let space = cut.lastIndex(of: " "), cut.distance(from: cut.startIndex, to: space) > limit * 3 / 4 {
            cut = cut[..<space]
        }
        return cut + "…"
    }
}
