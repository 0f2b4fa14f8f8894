/// The last word on what markup reaches a page: HTML read as a browser would tokenise it and
/// written out again from an allow-list. Ink's output passes through here, so whatever Ink lets
/// through by mistake (it copies URLs, image descriptions and code languages into attributes
/// unescaped, and text between `&` and `;` untouched) is still only ever:
///
/// - text, with every `<` that does not open an allowed tag written `&lt;`;
/// - allowed elements with allowed attributes only, each value decoded and escaped again, so
///   that the browser reads exactly the value that was checked (a URL's scheme included);
/// - balanced: a closing tag with nothing to close is shown as text, and everything still open
///   at the end is closed, so a body can never close the page's own elements.
struct HTMLSanitizer {
    enum Policy {
        /// An entry's body: what Markdown produces. Headings move one level down (the entry's
        /// title is the page's `h1`), and text outside any block is put in a paragraph.
        case body
        /// A search snippet: text and `<mark>`.
        case snippet
    }

    let policy: Policy
    /// The site's own images, allowed as relative URLs and given their size.
    var images = SiteImages()

    static let bodyElements: Set<String> = [
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "s", "del", "code", "pre", "blockquote",
        "ul", "ol", "li", "a", "img", "br", "hr", "table", "thead", "tbody", "tr", "th", "td",
    ]
    static let voidElements: Set<String> = ["br", "hr", "img"]
    /// Elements that start a block: text or inline elements at the top level are wrapped in a paragraph until one of these.
    static let blockElements: Set<String> = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "ul", "ol", "hr", "table"]

    private struct Open {
        let name: String
        /// What was written for it: nil when its opening tag was left out (a refused link).
        let written: String?
        let implicit: Bool
    }

    func sanitize(_ html: String) -> String {
        let s = Array(html.unicodeScalars)
        var out = ""
        out.reserveCapacity(html.utf8.count + html.utf8.count / 8)
        var stack: [Open] = []
        var i = 0

        func closeImplicitParagraph() {
            if stack.count == 1, stack[0].implicit {
                out += "</p>"
                stack.removeAll()
            }
        }
        func openImplicitParagraphIfNeeded() {
            if policy == .body, stack.isEmpty {
                out += "<p>"
                stack.append(Open(name: "p", written: "p", implicit: true))
            }
        }

        while i < s.count {
            let c = s[i]
            if c == "<", let tag = Tag.read(s, at: i) {
                let name = tag.name.lowercased()
                let allowed = policy == .body ? Self.bodyElements.contains(name) : name == "mark"
                guard allowed else {
                    openImplicitParagraphIfNeeded()
                    HTMLEscaping.append(String(String.UnicodeScalarView(s[i..<tag.end])), to: &out)
                    i = tag.end
                    continue
                }
                if tag.closing {
                    guard let index = stack.lastIndex(where: { $0.name == name && !$0.implicit }) else {
                        openImplicitParagraphIfNeeded()
                        HTMLEscaping.append(String(String.UnicodeScalarView(s[i..<tag.end])), to: &out)
                        i = tag.end
                        continue
                    }
                    for open in stack[index...].reversed() {
                        if let written = open.written { out += "</\(written)>" }
                    }
                    stack.removeSubrange(index...)
                } else {
                    if policy == .body {
                        if Self.blockElements.contains(name) { closeImplicitParagraph() } else { openImplicitParagraphIfNeeded() }
                    }
                    let written = openingTag(name, tag.attributes, into: &out)
                    if !Self.voidElements.contains(name) {
                        stack.append(Open(name: name, written: written, implicit: false))
                    }
                }
                i = tag.end
                continue
            }
            if !c.properties.isWhitespace { openImplicitParagraphIfNeeded() }
            switch c {
            case "&":
                if let length = HTMLEntities.isCompleteReference(s, at: i) {
                    out.unicodeScalars.append(contentsOf: s[i..<(i + length)])
                    i += length
                    continue
                }
                out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default:
                out.unicodeScalars.append(HTMLEscaping.isForbidden(c) ? "\u{FFFD}" : c)
            }
            i += 1
        }
        for open in stack.reversed() {
            if let written = open.written { out += "</\(written)>" }
        }
        return out
    }

    /// Writes the opening tag of an allowed element with its allowed attributes; answers the
    /// element name written, or nil when the tag was left out (a link whose URL is refused).
    private func openingTag(_ name: String, _ attributes: [(name: String, value: String)], into out: inout String) -> String? {
        func value(_ attribute: String) -> String? {
            attributes.first { $0.name == attribute }.map { HTMLEntities.decode($0.value) }
        }
        func attribute(_ name: String, _ value: String) {
            out += " \(name)=\""
            HTMLEscaping.append(value, to: &out)
            out += "\""
        }
        switch name {
        case "a":
            guard let href = value("href").flatMap(URLPolicy.link.allowed) else { return nil }
            out += "<a"
            attribute("href", href)
            if let title = value("title") { attribute("title", title) }
            // Another site's address: no endorsement passed on, and marked as the author's.
            let lowered = href.lowercased()
            if lowered.hasPrefix("http:") || lowered.hasPrefix("https:") || lowered.hasPrefix("//") {
                out += " rel=\"nofollow ugc noopener\""
            }
            out += ">"
            return "a"
        case "img":
            let alt = value("alt") ?? ""
            let own = value("src").flatMap(images.resolve)
            guard let src = own?.url ?? value("src").flatMap(URLPolicy.image.allowed) else {
                // The picture is not shown; what it was of still is.
                if !alt.isEmpty {
                    out += "<span class=\"image-refused\">"
                    HTMLEscaping.append(alt, to: &out)
                    out += "</span>"
                }
                return nil
            }
            out += "<img"
            attribute("src", src)
            attribute("alt", alt)
            if let title = value("title") { attribute("title", title) }
            if let size = own?.size { out += " width=\"\(size.width)\" height=\"\(size.height)\"" }
            out += " loading=\"lazy\" referrerpolicy=\"no-referrer\">"
            return "img"
        case "code":
            out += "<code"
            if let language = value("class"), Self.isLanguageClass(language) { attribute("class", language) }
            out += ">"
            return "code"
        case "ol":
            out += "<ol"
            if let start = value("start"), (1...9).contains(start.count), start.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) { attribute("start", start) }
            out += ">"
            return "ol"
        case "th", "td":
            out += "<\(name)"
            if let align = value("align"), ["left", "center", "right"].contains(align) { attribute("align", align) }
            out += ">"
            return name
        case "h1", "h2", "h3", "h4", "h5", "h6":
            let level = min(Int(String(name.dropFirst()))! + 1, 6)
            out += "<h\(level)>"
            return "h\(level)"
        default:
            out += "<\(name)>"
            return name
        }
    }

    /// `language-` and a plain name (`swift`, `objective-c`, `c++`, `c#`): the class Ink gives a fenced code block.
    static func isLanguageClass(_ value: String) -> Bool {
        guard value.hasPrefix("language-") else { return false }
        let language = value.dropFirst("language-".count)
        return (1...40).contains(language.count) && language.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_+#.-".unicodeScalars.contains(scalar))
        }
    }
}

/// One tag as an HTML tokenizer reads it: `<`, an optional `/`, a name that starts with a
/// letter, attributes (quoted, unquoted or bare), `>`. A quote left open means no tag.
struct Tag {
    var closing: Bool
    var name: String
    var attributes: [(name: String, value: String)]
    /// Index just past the `>`.
    var end: Int

    static func read(_ s: [Unicode.Scalar], at start: Int) -> Tag? {
        var j = start + 1
        var closing = false
        if j < s.count, s[j] == "/" {
            closing = true
            j += 1
        }
        guard j < s.count, s[j].isASCII, s[j].properties.isAlphabetic else { return nil }
        var name = ""
        while j < s.count, !isSpace(s[j]), s[j] != "/", s[j] != ">" {
            name.unicodeScalars.append(s[j])
            j += 1
        }
        var attributes: [(name: String, value: String)] = []
        while true {
            while j < s.count, isSpace(s[j]) || s[j] == "/" { j += 1 }
            guard j < s.count else { return nil }
            if s[j] == ">" { return Tag(closing: closing, name: name, attributes: attributes, end: j + 1) }
            var attributeName = String(s[j])
            j += 1
            while j < s.count, !isSpace(s[j]), s[j] != "/", s[j] != ">", s[j] != "=" {
                attributeName.unicodeScalars.append(s[j])
                j += 1
            }
            while j < s.count, isSpace(s[j]) { j += 1 }
            var value = ""
            if j < s.count, s[j] == "=" {
                j += 1
                while j < s.count, isSpace(s[j]) { j += 1 }
                guard j < s.count else { return nil }
                if s[j] == "\"" || s[j] == "'" {
                    let quote = s[j]
                    j += 1
                    guard let close = s[j...].firstIndex(of: quote) else { return nil }
                    value = String(String.UnicodeScalarView(s[j..<close]))
                    j = close + 1
                } else {
                    while j < s.count, !isSpace(s[j]), s[j] != ">" {
                        value.unicodeScalars.append(s[j])
                        j += 1
                    }
                }
            }
            attributes.append((attributeName.lowercased(), value))
        }
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }
}
