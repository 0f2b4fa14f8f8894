/// Bytes as hexadecimal digits.
public enum Hex {
    /// `0`–`9`, `a`–`f`, as UTF-8 bytes: for writers that append digits to a buffer of their own.
    public static let lowercaseDigits: [UInt8] = Array("0123456789abcdef".utf8)
    public static let uppercaseDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Two lowercase digits per byte (`[0xAB, 0x01]` is `ab01`).
    public static func lowercase<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(lowercaseDigits[Int(byte >> 4)])
            out.append(lowercaseDigits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 16 lowercase digits of a 64-bit number, most significant first.
    public static func lowercase(_ value: UInt64) -> String {
        lowercase(stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: value >> UInt64($0)) })
    }

    /// The value of one hex digit in either case, or nil.
    public static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
