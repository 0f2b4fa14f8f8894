/// A check of RFC 8259's grammar, run before Foundation's decoder: that decoder is lenient
/// (it takes a trailing comma, `{"a":1,}`), and the API promises 400 for anything that is not
/// JSON. Iterative, with a depth limit, so that deep nesting cannot exhaust the stack.
enum StrictJSON {
    /// Deeper documents are refused; the API's bodies nest two levels.
    static let maximumDepth = 64

    /// Whether `bytes` is exactly one JSON value, optionally surrounded by white space.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var scanner = Scanner(bytes: bytes)
        return scanner.document()
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// What may come next inside the innermost open container.
        private enum Expect { case value, valueOrClose, key, keyOrClose, colon, commaOrClose }

        mutating func document() -> Bool {
            var stack: [UInt8] = []  // "{" or "[" for each open container
            var expect = Expect.value
            while true {
                skipWhitespace()
                guard index < bytes.count else { return false }
                let byte = bytes[index]
                switch expect {
                case .value, .valueOrClose:
                    if expect == .valueOrClose, byte == UInt8(ascii: "]") {
                        index += 1
                        stack.removeLast()
                    } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        guard stack.count < StrictJSON.maximumDepth else { return false }
                        index += 1
                        stack.append(byte)
                        expect = byte == UInt8(ascii: "{") ? .keyOrClose : .valueOrClose
                        continue
                    } else {
                        guard scalar() else { return false }
                    }
                case .key, .keyOrClose:
                    if expect == .keyOrClose, byte == UInt8(ascii: "}") {
                        index += 1
                        stack.removeLast()
                    } else {
                        guard byte == UInt8(ascii: "\""), string() else { return false }
                        expect = .colon
                        continue
                    }
                case .colon:
                    guard byte == UInt8(ascii: ":") else { return false }
                    index += 1
                    expect = .value
                    continue
                case .commaOrClose:
                    guard let open = stack.last else { return false }
                    if byte == UInt8(ascii: ",") {
                        index += 1
                        expect = open == UInt8(ascii: "{") ? .key : .value
                        continue
                    }
                    guard byte == (open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                    index += 1
                    stack.removeLast()
                }
                // A value (or a container) just ended.
                if stack.isEmpty {
                    skipWhitespace()
                    return index == bytes.count
                }
                expect = .commaOrClose
            }
        }

        private mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        /// A string, number, `true`, `false` or `null`.
        private mutating func scalar() -> Bool {
            switch bytes[index] {
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        private mutating func string() -> Bool {
            index += 1  // the opening quote
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return true
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return false }
                    let escaped = bytes[index]
                    index += 1
                    if escaped == UInt8(ascii: "u") {
                        guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy(isHexDigit) else { return false }
                        index += 4
                    } else if !"\"\\/bfnrt".utf8.contains(escaped) {
                        return false
                    }
                case 0..<0x20:
                    return false  // control characters must be escaped
                default:
                    continue
                }
            }
            return false
        }

        private mutating func number() -> Bool {
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return false }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                digits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { return false }
                digits()
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { return false }
                digits()
            }
            return true
        }

        private mutating func digits() {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

        private func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
        }
    }
}
