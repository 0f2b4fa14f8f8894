/// Percent-decoding for paths and queries, strict where browsers are lenient: a broken
/// escape or bytes that are not UTF-8 give nil, so the caller can answer 400.
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`), or nil on a bad escape or invalid UTF-8.
    public static func decode(_ text: Substring, plusAsSpace: Bool = false) -> String? {
        let utf8 = text.utf8
        if !utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex, let high = hexValue(utf8[first]), let low = hexValue(utf8[second]) else { return nil }
                bytes.append(high << 4 | low)
                index = utf8.index(after: second)
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// One decoded `name=value` pair of a query string.
public struct QueryItem: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension HTTPRequest {
    /// The decoded query items in order, or nil when an escape is broken or not UTF-8.
    public func queryItems() -> [QueryItem]? {
        guard let rawQuery, !rawQuery.isEmpty else { return [] }
        var items: [QueryItem] = []
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(parts[0], plusAsSpace: true),
                  let value = PercentDecoding.decode(parts.count > 1 ? parts[1] : "", plusAsSpace: true)
            else { return nil }
            items.append(QueryItem(name: name, value: value))
        }
        return items
    }

    /// The decoded path segments (`/api/entries/42` gives `["api", "entries", "42"]`), or nil
    /// when an escape is broken, not UTF-8, or decodes to a `/` or a NUL.
    public func pathSegments() -> [String]? {
        var segments: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = PercentDecoding.decode(raw), !segment.contains("/"), !segment.contains("\0") else { return nil }
            segments.append(segment)
        }
        return segments
    }
}
