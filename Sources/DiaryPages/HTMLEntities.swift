/// Character references (`&amp;`, `&#106;`, `&#x6A;`) read the way a browser reads them in an
/// attribute, so that a URL is checked as the browser will see it. The names a browser knows
/// are thousands; the ones here are those Ink lets through and those that spell URL syntax.
/// Any other name is kept as written: the sanitizer escapes its `&` on output, so the browser
/// then reads it as the same literal text that was checked.
enum HTMLEntities {
    static let named: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
        "Tab": "\t", "NewLine": "\n", "colon": ":", "sol": "/", "quest": "?", "num": "#", "period": ".",
        "comma": ",", "lpar": "(", "rpar": ")", "semi": ";", "excl": "!", "equals": "=", "plus": "+",
        "percnt": "%", "commat": "@", "lsqb": "[", "rsqb": "]", "bsol": "\\", "copy": "©", "reg": "®",
        "hellip": "…", "mdash": "—", "ndash": "–", "laquo": "«", "raquo": "»", "ldquo": "“", "rdquo": "”",
        "lsquo": "‘", "rsquo": "’", "middot": "·", "times": "×", "deg": "°", "yen": "¥", "euro": "€",
    ]

    /// `text` with every reference it holds replaced by its character(s).
    static func decode(_ text: some StringProtocol) -> String {
        guard text.contains("&") else { return String(text) }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            if scalars[i] == "&", let (decoded, length) = reference(in: scalars, at: i) {
                out.append(contentsOf: decoded.unicodeScalars)
                i += length
            } else {
                out.append(scalars[i])
                i += 1
            }
        }
        return String(out)
    }

    /// The reference starting at `start` (an `&`): what it stands for and how many scalars it
    /// spans, or nil when none starts there. A numeric reference may omit its `;` (browsers
    /// read `&#106avascript:` as `javascript:`); a named one needs it here.
    static func reference(in scalars: [Unicode.Scalar], at start: Int) -> (String, Int)? {
        var i = start + 1
        guard i < scalars.count else { return nil }
        if scalars[i] == "#" {
            i += 1
            var hex = false
            if i < scalars.count, scalars[i] == "x" || scalars[i] == "X" {
                hex = true
                i += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while i < scalars.count, let digit = digitValue(scalars[i], hex: hex) {
                value = value > 0x10FFFF ? value : value * (hex ? 16 : 10) + digit
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if i < scalars.count, scalars[i] == ";" { i += 1 }
            // As browsers do: NUL, surrogates and values past Unicode read as U+FFFD.
            let scalar = value == 0 ? nil : Unicode.Scalar(value)
            return (String(scalar ?? "\u{FFFD}"), i - start)
        }
        var name = ""
        while i < scalars.count, isASCIILetterOrDigit(scalars[i]) {
            name.unicodeScalars.append(scalars[i])
            i += 1
            if name.unicodeScalars.count > 32 { return nil }
        }
        guard i < scalars.count, scalars[i] == ";", let decoded = named[Substring(name)] else { return nil }
        return (decoded, i + 1 - start)
    }

    /// Whether a syntactically complete reference (`&name;`, `&#digits;`, `&#xhex;`) starts
    /// at `start`: in text such a reference is kept, any other `&` is escaped.
    static func isCompleteReference(_ scalars: [Unicode.Scalar], at start: Int) -> Int? {
        var i = start + 1
        guard i < scalars.count else { return nil }
        var hex = false
        var numeric = false
        if scalars[i] == "#" {
            numeric = true
            i += 1
            if i < scalars.count, scalars[i] == "x" || scalars[i] == "X" {
                hex = true
                i += 1
            }
        }
        let first = i
        while i < scalars.count, i - first < 32,
              numeric ? digitValue(scalars[i], hex: hex) != nil : isASCIILetterOrDigit(scalars[i]) {
            i += 1
        }
        guard i > first, i < scalars.count, scalars[i] == ";" else { return nil }
        return i + 1 - start
    }

    private static func digitValue(_ scalar: Unicode.Scalar, hex: Bool) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46 where hex: scalar.value - 0x41 + 10
        case 0x61...0x66 where hex: scalar.value - 0x61 + 10
        default: nil
        }
    }

    private static func isASCIILetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }
}
