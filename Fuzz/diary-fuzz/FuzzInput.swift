/// Reads a fuzzer's bytes as a series of choices. Past the end every read is 0, so any input,
/// even an empty one, decodes to some request: the same bytes always make the same request.
struct FuzzInput {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in 0..<count (0 when count is 0 or 1).
    mutating func below(_ count: Int) -> Int {
        guard count > 1 else { return 0 }
        return (Int(byte()) << 8 | Int(byte())) % count
    }

    var isExhausted: Bool { index >= bytes.count }

    /// True about `percent` times in a hundred; false once the input is used up, so loops end.
    mutating func chance(_ percent: Int) -> Bool {
        !isExhausted && below(100) < percent
    }

    mutating func pick<T>(_ options: [T]) -> T {
        options[below(options.count)]
    }

    /// `usual` about `percent` times in a hundred, else one of `others`: mostly valid requests
    /// reach the handlers and the store, the rest probe the edges.
    mutating func mostly<T>(_ usual: T, _ percent: Int, else others: [T]) -> T {
        chance(percent) ? usual : pick(others)
    }

    /// Up to `limit` raw bytes from the input itself.
    mutating func bytes(upTo limit: Int) -> [UInt8] {
        let count = min(below(limit + 1), bytes.count - min(index, bytes.count))
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    /// Up to `limit` bytes as text; invalid UTF-8 becomes U+FFFD, as a transport would hand it over.
    mutating func text(upTo limit: Int) -> String {
        String(decoding: bytes(upTo: limit), as: UTF8.self)
    }
}
