/// HTML written as Markdown, for HTML that arrives where entries keep Markdown (Micropub's
/// `{"html": …}` content). The HTML is sanitised first, as every page's body is, so only the
/// elements and attributes a body may hold are left; each is then written in Ink's Markdown,
/// and text is escaped so that it stays text. Headings come out one level down, as the
/// sanitizer moves them (the entry's title is the page's `h1`).
public enum HTMLMarkdown {
    public static func markdown(fromHTML html: String) -> String {
        let clean = Array(HTMLSanitizer(policy: .body).sanitize(prepared(html)).unicodeScalars)
        var writer = MarkdownWriter()
        var i = 0
        while i < clean.count {
            if clean[i] == "<", let tag = Tag.read(clean, at: i) {
                writer.write(tag)
                i = tag.end
            } else {
                let next = clean[(i + 1)...].firstIndex(of: "<") ?? clean.count
                writer.write(text: HTMLEntities.decode(String(String.UnicodeScalarView(clean[i..<next]))))
                i = next
            }
        }
        return writer.result
    }
}

extension HTMLMarkdown {
    /// Elements whose content is not text to show: left out with it.
    static let droppedWithContent: Set<String> = ["script", "style", "template", "noscript", "textarea", "title", "iframe", "object"]
    /// HTML's presentational names for what a body keeps as emphasis.
    static let renamed = ["b": "strong", "i": "em", "strike": "s"]

    /// `html` with `<b>` and `<i>` (which editors send, and the sanitiser does not keep) named
    /// `strong` and `em`, and scripts and styles left out with their content, which the
    /// sanitiser would otherwise keep as text. The sanitiser still has the last word.
    static func prepared(_ html: String) -> String {
        let s = Array(html.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < s.count {
            guard s[i] == "<", let tag = Tag.read(s, at: i) else {
                out.append(s[i])
                i += 1
                continue
            }
            let name = tag.name.lowercased()
            if !tag.closing, droppedWithContent.contains(name) {
                // To the matching end tag, or to the end of the text when there is none.
                var j = tag.end
                while j < s.count, !(s[j] == "<" && Tag.read(s, at: j).map { $0.closing && $0.name.lowercased() == name } == true) { j += 1 }
                i = j < s.count ? Tag.read(s, at: j)!.end : s.count
                continue
            }
            if let other = renamed[name] {
                out.append(contentsOf: "<\(tag.closing ? "/" : "")\(other)>".unicodeScalars)
            } else {
                out.append(contentsOf: s[i..<tag.end])
            }
            i = tag.end
        }
        return String(out)
    }
}

/// Writes Markdown as the sanitised HTML's tags and text come.
struct MarkdownWriter {
    private var out = ""
    private var lists: [(ordered: Bool, count: Int)] = []
    private var quoteDepth = 0
    private var inPre = false
    /// The `href` of each open link, written after its text.
    private var links: [String] = []

    var result: String {
        var text = out
        while text.last?.isWhitespace == true { text.removeLast() }
        while text.first?.isNewline == true { text.removeFirst() }
        return text
    }

    private var atLineStart: Bool { out.isEmpty || out.hasSuffix("\n") || out.hasSuffix("> ") }

    mutating func write(_ tag: Tag) {
        let name = tag.name.lowercased()
        func attribute(_ wanted: String) -> String {
            HTMLEntities.decode(tag.attributes.first { $0.name == wanted }?.value ?? "")
        }
        switch (name, tag.closing) {
        case ("p", false), ("table", false): startBlock()
        case ("h1", false), ("h2", false), ("h3", false), ("h4", false), ("h5", false), ("h6", false):
            startBlock()
            out += String(repeating: "#", count: Int(String(name.dropFirst())) ?? 1) + " "
        case ("em", _): out += "*"
        case ("strong", _): out += "**"
        case ("s", _), ("del", _): out += "~~"
        case ("code", _) where !inPre: out += "`"
        case ("a", false):
            links.append(attribute("href"))
            out += "["
        case ("a", true):
            out += "](\(links.popLast() ?? ""))"
        case ("img", false): out += MarkdownImageSyntax.image(url: attribute("src"), alt: attribute("alt"))
        case ("br", false): out += "  "; newLine()
        case ("hr", false): startBlock(); out += "---"
        case ("ul", false), ("ol", false):
            if lists.isEmpty { startBlock() }
            lists.append((ordered: name == "ol", count: 0))
        case ("ul", true), ("ol", true): _ = lists.popLast()
        case ("li", false): listItem()
        case ("blockquote", false): quoteDepth += 1; startBlock()
        case ("blockquote", true): quoteDepth = max(0, quoteDepth - 1); startBlock()
        case ("pre", false): startBlock(); out += "```"; newLine(); inPre = true
        case ("pre", true): inPre = false; newLine(); out += "```"
        case ("tr", false): newLine()
        case ("td", false), ("th", false): out += atLineStart ? "" : " | "
        default: break
        }
    }

    mutating func write(text: String) {
        if inPre {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.offset > 0 { newLine() }
                out += line.element
            }
            return
        }
        var previousSpace = atLineStart || out.last == " "
        for character in text {
            if character.isWhitespace {
                if !previousSpace { out += " " }
                previousSpace = true
                continue
            }
            let lineStartMarks: Set<Character> = ["#", ">", "-", "+", "="]
            if "\\*_`[]~<".contains(character) || (atLineStart && lineStartMarks.contains(character)) { out += "\\" }
            out.append(character)
            previousSpace = false
        }
    }

    private mutating func listItem() {
        guard !lists.isEmpty else { return }
        lists[lists.count - 1].count += 1
        newLine()
        out += String(repeating: "  ", count: lists.count - 1)
        out += lists[lists.count - 1].ordered ? "\(lists[lists.count - 1].count). " : "- "
    }

    private mutating func newLine() {
        out += "\n" + String(repeating: "> ", count: quoteDepth)
    }

    private mutating func startBlock() {
        guard !out.isEmpty else {
            out += String(repeating: "> ", count: quoteDepth)
            return
        }
        while out.last == " " { out.removeLast() }
        out += "\n"
        newLine()
    }
}

/// `![description](url)` written so that neither part can end early: brackets in the
/// description, and spaces or parentheses in the URL, are what would end them.
public enum MarkdownImageSyntax {
    public static func image(url: String, alt: String) -> String {
        let description = String(alt.map { "[]\\\n\r".contains($0) ? " " : $0 })
        var target = ""
        for scalar in url.unicodeScalars {
            switch scalar {
            case " ": target += "%20"
            case "(": target += "%28"
            case ")": target += "%29"
            case "<": target += "%3C"
            case ">": target += "%3E"
            default: target.unicodeScalars.append(scalar)
            }
        }
        return "![\(description)](\(target))"
    }
}
