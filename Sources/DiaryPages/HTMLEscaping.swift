/// Text made safe to put between tags or inside a quoted attribute, in HTML and in XML alike:
/// `& < > " '` become entities, and the characters XML 1.0 cannot hold at all (C0 controls
/// other than tab and line breaks, U+FFFE, U+FFFF) become U+FFFD, so that an author's control
/// character can never make a feed unreadable.
public enum HTMLEscaping {
    public static func escape(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        append(text, to: &out)
        return out
    }

    /// Appends `text` escaped; the page writers build one string this way.
    public static func append(_ text: some StringProtocol, to out: inout String) {
        // Most text needs nothing: copied whole when no scalar does.
        if !text.unicodeScalars.contains(where: needsWork) {
            out += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(isForbidden(scalar) ? "\u{FFFD}" : scalar)
            }
        }
    }

    /// A scalar XML 1.0 does not allow in a document, even as a character reference.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0..<0x20, 0xFFFE, 0xFFFF: true
        default: false
        }
    }

    private static func needsWork(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "&", "<", ">", "\"", "'": true
        default: isForbidden(scalar)
        }
    }
}
