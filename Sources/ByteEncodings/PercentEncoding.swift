/// Percent-encoding (RFC 3986) of path segments and query values: everything but the
/// unreserved characters is escaped; decoding is strict where browsers are lenient, so that a
/// broken escape or bytes that are not UTF-8 can be answered 400.
public enum PercentEncoding {
    public static func encode(_ text: String) -> String {
        let hex = Hex.uppercaseDigits
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

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
                guard second != utf8.endIndex, let high = Hex.value(of: utf8[first]), let low = Hex.value(of: utf8[second]) else { return nil }
                bytes.append(high << 4 | low)
                index = utf8.index(after: second)
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
