/// How many columns a terminal gives text: CJK characters and most emoji take two, combining
/// marks and zero-width characters none, so that columns line up with Japanese titles.
/// (East Asian Width is not among Swift's Unicode properties; the wide ranges are below, from
/// Unicode's EastAsianWidth.txt, W and F.)
public enum DisplayWidth {
    /// The columns of `text`, cluster by cluster; escape sequences (`ESC [ … m`, `ESC ] … ESC \`) take none.
    public static func of(_ text: some StringProtocol) -> Int {
        atoms(String(text)).reduce(0) { $0 + $1.width }
    }

    /// The characters of `text`, each with its columns, and each escape sequence whole, with none.
    static func atoms(_ text: String) -> [(text: String, width: Int)] {
        var atoms: [(text: String, width: Int)] = []
        var escape: String?
        for character in text {
            if var sequence = escape {
                sequence.append(character)
                if sequence.count > 2, sequenceEnds(sequence, at: character) {
                    atoms.append((sequence, 0))
                    escape = nil
                } else {
                    escape = sequence
                }
            } else if character == "\u{1B}" {
                escape = "\u{1B}"
            } else {
                atoms.append((String(character), of(character)))
            }
        }
        if let escape { atoms.append((escape, 0)) }
        return atoms
    }

    /// Whether `character`, just appended to `sequence`, ends it: an OSC sequence (`ESC ]`, an
    /// OSC 8 hyperlink) ends with BEL or `ESC \`; a CSI sequence with a letter (0x40–0x7E after the `[`).
    private static func sequenceEnds(_ sequence: String, at character: Character) -> Bool {
        if sequence.hasPrefix("\u{1B}]") { return character == "\u{07}" || sequence.hasSuffix("\u{1B}\\") }
        return character.asciiValue.map { (0x40...0x7E).contains($0) } ?? false
    }

    /// The columns of one character: 2 when its first scalar is wide or it is an emoji shown as
    /// one, 0 for marks and controls, else 1.
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return of(first)
    }

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (0x7F..<0xA0).contains(value) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if value == 0x200B { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// East Asian Wide and Fullwidth ranges.
    static let wide: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x1F200...0x1F2FF, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    /// `text` cut to at most `columns`, with `…` where it was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var out = "", used = 0
        for atom in atoms(text) {
            if used + atom.width > columns - 1 { break }
            out += atom.text
            used += atom.width
        }
        return out + "…"
    }

    /// `text` followed by spaces up to `columns`.
    public static func pad(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - of(text)))
    }

    /// `text` broken into lines of at most `columns`: at spaces where it can, inside a word
    /// (or between CJK characters, which need no space) where it must.
    public static func wrap(_ text: String, to columns: Int) -> [String] {
        let columns = max(columns, 1)
        var lines: [String] = [], line = "", width = 0
        for word in words(text) {
            let wordWidth = of(word)
            if width > 0 && width + wordWidth > columns {
                lines.append(trimmingTrailingSpaces(line))
                line = ""; width = 0
                if word == " " { continue }
            }
            if wordWidth > columns {
                for atom in atoms(word) {
                    if width + atom.width > columns {
                        lines.append(line)
                        line = ""; width = 0
                    }
                    line += atom.text
                    width += atom.width
                }
            } else {
                line += word
                width += wordWidth
            }
        }
        lines.append(trimmingTrailingSpaces(line))
        return lines
    }

    /// Runs of non-spaces, single spaces, and each wide character on its own (a line may break
    /// after any of them).
    private static func words(_ text: String) -> [String] {
        var words: [String] = [], current = ""
        for atom in atoms(text) {
            if atom.text == " " || atom.width == 2 {
                if !current.isEmpty { words.append(current) }
                words.append(atom.text)
                current = ""
            } else {
                current += atom.text
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func trimmingTrailingSpaces(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
