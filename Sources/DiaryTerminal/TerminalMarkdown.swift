import DiaryAPI

/// An entry's Markdown body as lines for a terminal of a given width: headings and bold in
/// bold, emphasis in italics, quotes behind a bar, lists with hanging indents, code blocks as
/// written and indented, links as their text followed by the URL. Without colour the same
/// layout, with no escape sequences. Raw HTML stays text. Written by hand: the Markdown
/// library in the package copies (Ink) renders HTML only, and a terminal needs widths.
public struct TerminalMarkdown: Sendable {
    public var style: DisplayStyle
    public var width: Int
    /// Width and height of the site's images (`/media/<id>`) by id, shown with them when known.
    public var imageSizes: [String: (width: Int, height: Int)]

    public init(style: DisplayStyle, width: Int, imageSizes: [String: (width: Int, height: Int)] = [:]) {
        self.style = style
        self.width = max(width, 20)
        self.imageSizes = imageSizes
    }

    // MARK: Blocks

    public func render(_ markdown: String) -> [String] {
        var out: [String] = []
        var paragraph: [String] = []
        var code: [String]?
        func flush() {
            guard !paragraph.isEmpty else { return }
            out += DisplayWidth.wrap(inline(paragraph.joined(separator: " ")), to: width)
            out.append("")
            paragraph = []
        }
        for rawLine in markdown.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                if let block = code {
                    out += block.map { "    " + $0 }
                    out.append("")
                    code = nil
                } else {
                    flush()
                    code = []
                }
                continue
            }
            if code != nil {
                code?.append(DisplayWidth.truncate(Self.visible(line), to: width - 4))
                continue
            }
            if trimmed.isEmpty {
                // A blank line ends a paragraph, a list or a quote: one empty line between blocks.
                if paragraph.isEmpty, let last = out.last, !last.isEmpty { out.append("") }
                flush()
                continue
            }
            if let heading = Self.heading(String(trimmed)) {
                flush()
                out += DisplayWidth.wrap(style.bold(inline(heading.text, plainBold: true)), to: width)
                if heading.level <= 2 { out.append(String(repeating: heading.level == 1 ? "═" : "─", count: min(width, DisplayWidth.of(heading.text)))) }
                out.append("")
                continue
            }
            if trimmed.hasPrefix(">") {
                flush()
                let quoted = trimmed.dropFirst().drop { $0 == " " }
                out += DisplayWidth.wrap(inline(String(quoted)), to: width - 2).map { "│ " + $0 }
                continue
            }
            if let item = Self.listItem(String(trimmed)) {
                flush()
                let indent = String(repeating: " ", count: DisplayWidth.of(item.marker) + 1)
                let lines = DisplayWidth.wrap(inline(item.text), to: width - indent.count)
                out += lines.enumerated().map { $0.offset == 0 ? item.marker + " " + $0.element : indent + $0.element }
                continue
            }
            if trimmed.allSatisfy({ $0 == "-" || $0 == "*" || $0 == "_" || $0 == " " }), trimmed.filter({ $0 != " " }).count >= 3 {
                flush()
                out.append(String(repeating: "─", count: width))
                continue
            }
            paragraph.append(String(trimmed))
        }
        if let block = code { out += block.map { "    " + $0 } }
        flush()
        while out.last == "" { out.removeLast() }
        return out
    }

    static func heading(_ line: String) -> (level: Int, text: String)? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
        return (hashes, String(line.dropFirst(hashes + 1)).trimmingSpacesAndHashes)
    }

    static func listItem(_ line: String) -> (marker: String, text: String)? {
        if let first = line.first, "-*+".contains(first), line.dropFirst().first == " " {
            return ("•", String(line.dropFirst(2)))
        }
        let digits = line.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty, digits.count <= 9, line.dropFirst(digits.count).hasPrefix(". ") {
            return (digits + ".", String(line.dropFirst(digits.count + 2)))
        }
        return nil
    }

    // MARK: Inline

    /// Emphasis, code spans and links of one paragraph; text outside them as written (control
    /// characters, escape sequences included, become visible text, never commands).
    func inline(_ text: String, plainBold: Bool = false) -> String {
        let characters = Array(Self.visible(text))
        var out = ""
        var index = 0
        var bold = false, italic = false
        func toggle(_ on: Bool, _ code: String, _ off: String) -> String {
            style.color ? "\u{1B}[\(on ? code : off)m" : ""
        }
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "\\", let next, "\\`*_[]()#+-.!>".contains(next) {
                out.append(next)
                index += 2
            } else if character == "`", let end = characters[(index + 1)...].firstIndex(of: "`") {
                out += String(characters[(index + 1)..<end])
                index = end + 1
            } else if (character == "*" || character == "_"), next == character {
                bold.toggle()
                if !plainBold { out += toggle(bold, "1", "22") }
                index += 2
            } else if character == "*" || character == "_", Self.togglesEmphasis(characters, at: index, closing: italic) {
                italic.toggle()
                out += toggle(italic, "3", "23")
                index += 1
            } else if character == "!" || character == "[", let link = Self.link(characters, at: character == "!" ? index + 1 : index) {
                let label = String(characters[link.label])
                out += character == "!" ? image(label, url: link.url) : (label == link.url ? "<\(link.url)>" : "\(label) <\(link.url)>")
                index = link.end
            } else {
                out.append(character)
                index += 1
            }
        }
        if style.color && (bold || italic) { out += "\u{1B}[0m" }
        return out
    }

    /// An image as one line: `[image: alt · 2048×1536]`, the size when it is one of the site's
    /// images whose size is known, as a hyperlink to its URL where the style makes them, else
    /// followed by the URL: `[image: alt · 2048×1536] <url>`.
    func image(_ alt: String, url: String) -> String {
        let size = MediaLinks.ids(in: url).first.flatMap { imageSizes[$0.text] }
        let label = "[image: \(alt)" + (size.map { " · \($0.width)×\($0.height)" } ?? "") + "]"
        return style.hyperlink(label, to: url) ?? label + " <\(url)>"
    }

    /// Whether the `*` or `_` at `index` opens (or with `closing`, closes) emphasis: it must touch
    /// a word on the inside, and an `_` inside a word (snake_case) is a letter.
    static func togglesEmphasis(_ characters: [Character], at index: Int, closing: Bool) -> Bool {
        let before = index > 0 ? characters[index - 1] : nil
        let after = index + 1 < characters.count ? characters[index + 1] : nil
        let inside = closing ? before : after
        let outside = closing ? after : before
        guard let inside, !inside.isWhitespace else { return false }
        if characters[index] == "_", let outside, outside.isLetter || outside.isNumber { return false }
        return true
    }

    /// `[label](url)` starting at `start`: the label's range, the URL and where it ends.
    static func link(_ characters: [Character], at start: Int) -> (label: Range<Int>, url: String, end: Int)? {
        guard start < characters.count, characters[start] == "[",
              let close = characters[(start + 1)...].firstIndex(of: "]"),
              close + 1 < characters.count, characters[close + 1] == "(",
              let end = characters[(close + 2)...].firstIndex(of: ")")
        else { return nil }
        let url = String(characters[(close + 2)..<end]).split(separator: " ").first.map(String.init) ?? ""
        return ((start + 1)..<close, url, end + 1)
    }

    /// Control characters (an escape sequence an author wrote, a bell) made visible as `^[`,
    /// so that an entry cannot move the cursor or change the terminal's colours.
    static func visible(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if scalar == "\t" {
                out += "    "
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "^" + String(UnicodeScalar(UInt8(scalar.value ^ 0x40)))
            } else if (0x80..<0xA0).contains(scalar.value) {
                out += "?"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    /// A heading's text without a closing run of `#` (`## Title ##`).
    fileprivate var trimmingSpacesAndHashes: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        if text.last == "#" {
            let withoutHashes = text.reversed().drop { $0 == "#" }
            if withoutHashes.first == " " { text = Substring(String(withoutHashes.reversed())) }
        }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
