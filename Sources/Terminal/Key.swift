/// A key as a terminal sends it.
public enum Key: Sendable, Equatable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    /// Ctrl with a letter, such as `.control("c")` for Ctrl-C (raw mode passes it as a byte).
    case control(Character)
    /// A sequence this decoder does not know; ignored by callers.
    case unknown
}

/// Turns the bytes of a terminal in raw mode into keys: UTF-8 text, control bytes, and the
/// `ESC [` and `ESC O` sequences of arrows and paging keys (xterm, tmux, the Linux console).
/// Bytes that may start a longer sequence are kept until more arrive or `flush()` is called.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// True while an incomplete sequence is held back.
    public var isWaiting: Bool { !pending.isEmpty }

    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        while let (key, length) = Self.decode(pending[...], final: false) {
            keys.append(key)
            pending.removeFirst(length)
        }
        return keys
    }

    /// What is held back, decoded as it stands: a lone ESC is the Esc key.
    public mutating func flush() -> [Key] {
        var keys: [Key] = []
        while !pending.isEmpty, let (key, length) = Self.decode(pending[...], final: true) {
            keys.append(key)
            pending.removeFirst(length)
        }
        pending.removeAll()
        return keys
    }

    /// The first key of `bytes` and its length, or nil when more bytes are needed (never when `final`).
    static func decode(_ bytes: ArraySlice<UInt8>, final: Bool) -> (Key, Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x1B: return escape(bytes, final: final)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x00..<0x20: return (.unknown, 1)
        case 0x20..<0x80: return (.character(Character(Unicode.Scalar(first))), 1)
        default: return utf8(bytes, final: final)
        }
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>, final: Bool) -> (Key, Int)? {
        let length = switch bytes.first! {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 0
        }
        guard length > 0 else { return (.unknown, 1) }
        let available = bytes.dropFirst().prefix(length - 1)
        guard available.allSatisfy({ (0x80...0xBF).contains($0) }) else { return (.unknown, 1) }
        guard available.count == length - 1 else { return final ? (.unknown, bytes.count) : nil }
        let text = String(decoding: bytes.prefix(length), as: UTF8.self)
        guard let character = text.first, text.count == 1, character != "\u{FFFD}" else { return (.unknown, length) }
        return (.character(character), length)
    }

    private static func escape(_ bytes: ArraySlice<UInt8>, final: Bool) -> (Key, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return final ? (.escape, 1) : nil }
        let introducer = bytes[start + 1]
        guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            // ESC followed by something else: Esc, then that key on its own.
            return (.escape, 1)
        }
        // Parameters (digits and `;`) then one final byte in 0x40–0x7E.
        var index = start + 2
        while index < bytes.endIndex, (0x30...0x3F).contains(bytes[index]) { index += 1 }
        guard index < bytes.endIndex else { return final ? (.escape, 1) : nil }
        let finalByte = bytes[index]
        guard (0x40...0x7E).contains(finalByte) else { return (.escape, 1) }
        let parameters = String(decoding: bytes[(start + 2)..<index], as: UTF8.self)
        let length = index - start + 1
        let key: Key = switch (Character(Unicode.Scalar(finalByte)), parameters) {
        case ("A", _): .up
        case ("B", _): .down
        case ("C", _): .right
        case ("D", _): .left
        case ("H", _), ("~", "1"), ("~", "7"): .home
        case ("F", _), ("~", "4"), ("~", "8"): .end
        case ("~", "5"): .pageUp
        case ("~", "6"): .pageDown
        default: .unknown
        }
        return (key, length)
    }
}
