/// Which URLs an entry may link to or show: links keep http, https, mailto and relative URLs,
/// images only http and https. The check is made on the URL as a browser reads it (references
/// already decoded by the caller): leading and trailing spaces and C0 controls dropped, tabs
/// and line breaks removed anywhere, the scheme compared without case. So `JaVaScRiPt:`,
/// ` javascript:`, `java\nscript:` and `&#106;avascript:` are all `javascript:` and refused.
public enum URLPolicy: Sendable {
    case link
    case image

    /// The URL as it should be written into the attribute, or nil when it is refused.
    public func allowed(_ url: String) -> String? {
        var scalars = Array(url.unicodeScalars)
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        scalars.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        // Any other control left inside is no part of a URL anyone meant.
        guard !scalars.isEmpty, !scalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        let cleaned = String(String.UnicodeScalarView(scalars))
        if let scheme = Self.scheme(of: scalars) {
            switch self {
            case .link: return ["http", "https", "mailto"].contains(scheme) ? cleaned : nil
            case .image: return ["http", "https"].contains(scheme) ? cleaned : nil
            }
        }
        // No scheme: relative. A `:` before any `/`, `?` or `#` is a scheme a browser might
        // still read some way (or a typo); refused rather than guessed at.
        if let colon = scalars.firstIndex(of: ":"),
           !scalars[..<colon].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            return nil
        }
        switch self {
        case .link: return cleaned
        case .image: return nil
        }
    }

    /// The lowercased scheme when the URL starts with one (`ALPHA *( ALPHA / DIGIT / + / - / . ) :`).
    private static func scheme(of scalars: [Unicode.Scalar]) -> String? {
        guard let first = scalars.first, first.properties.isAlphabetic, first.isASCII else { return nil }
        var scheme = ""
        for scalar in scalars {
            if scalar == ":" { return scheme.lowercased() }
            guard scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "+" || scalar == "-" || scalar == "." else {
                return nil
            }
            scheme.unicodeScalars.append(scalar)
        }
        return nil
    }
}
