import ByteEncodings

/// The id of an uploaded image: 128 bits from the system's CSPRNG (getrandom), as 32 lowercase
/// hex digits, and the last part of its URL, `/media/<id>`.
///
/// Random, so that the URL says nothing of the image: a hash of its content would let someone
/// holding the same photo test whether a user uploaded it, and a counter would let anyone walk
/// every upload. 128 bits make guessing hopeless and a collision unheard of; the store's unique
/// index refuses one anyway.
public struct MediaID: Sendable, Hashable, CustomStringConvertible {
    public static let digitCount = 32
    /// Where images are served: `url` is this followed by the id.
    public static let pathPrefix = "/media/"

    public let text: String

    /// The id `text` is, when it is 32 lowercase hex digits; nil otherwise (an id never given out).
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count == Self.digitCount, text.utf8.allSatisfy(Self.isLowercaseHexDigit) else { return nil }
        self.text = String(text)
    }

    /// A new id.
    public static func random() -> MediaID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(digitCount / 2)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return MediaID(Hex.lowercase(bytes))!
    }

    /// The path the image is served at, which authors put in Markdown.
    public var url: String { Self.pathPrefix + text }

    public var description: String { text }

    static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}

/// The images an entry's body links to: every `/media/<id>` in it, whether in Markdown's
/// `![alt](/media/…)`, a plain link or an absolute URL of the site. The store keeps these per
/// entry, in the transaction that writes the body, and an image is readable by whoever may
/// read one of its owner's entries linking to it.
public enum MediaLinks {
    /// The ids linked from `body`, each once, in order of first appearance.
    public static func ids(in body: String) -> [MediaID] {
        var found: [MediaID] = []
        var seen = Set<String>()
        for link in links(in: Array(body.utf8)) where seen.insert(link.id.text).inserted {
            found.append(link.id)
        }
        return found
    }

    /// `body` with each `/media/<id>` for which `replacement` gives text replaced by that text
    /// (an export's relative file name, an import's new URL); the rest as it was.
    /// - Parameter sitePathsOnly: leave links inside absolute URLs (`https://host/media/…`)
    ///   alone: a relative file name cannot stand in for a host's path.
    public static func replacing(in body: String, sitePathsOnly: Bool = false, _ replacement: (MediaID) -> String?) -> String {
        let utf8 = Array(body.utf8)
        var result: [UInt8] = []
        var copied = 0
        for link in links(in: utf8) {
            if sitePathsOnly, link.range.lowerBound > 0, !sitePathOpeners.contains(utf8[link.range.lowerBound - 1]) { continue }
            guard let text = replacement(link.id) else { continue }
            result += utf8[copied..<link.range.lowerBound]
            result += Array(text.utf8)
            copied = link.range.upperBound
        }
        result += utf8[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// What may stand before a site path in Markdown or HTML: `(`, `<`, a quote, white space.
    private static let sitePathOpeners: Set<UInt8> = Set("(<\"' \t\n\r".utf8)

    /// Every `/media/<32 hex digits>` in `utf8`, repeats included, with where it stands.
    private static func links(in utf8: [UInt8]) -> [(id: MediaID, range: Range<Int>)] {
        let prefix = Array(MediaID.pathPrefix.utf8)
        var found: [(id: MediaID, range: Range<Int>)] = []
        var index = 0
        while index + prefix.count + MediaID.digitCount <= utf8.count {
            guard utf8[index..<(index + prefix.count)].elementsEqual(prefix) else {
                index += 1
                continue
            }
            let start = index + prefix.count
            let end = start + MediaID.digitCount
            // Exactly 32 digits: a longer run of hex digits is not an id.
            let followedByDigit = end < utf8.count && MediaID.isLowercaseHexDigit(utf8[end])
            if !followedByDigit, let id = MediaID(String(decoding: utf8[start..<end], as: UTF8.self)) {
                found.append((id, index..<end))
                index = end
            } else {
                index = start
            }
        }
        return found
    }
}
