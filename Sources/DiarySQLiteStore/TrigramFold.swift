import Foundation
import GRDB
import GRDBSQLite

/// How SQLite's trigram tokenizer folds case, the fold `entries_fts` and `entries_private_fts`
/// find terms by (`sqlite3Fts5UnicodeFold(c, 0)`: one code point into one, A–Z into a–z, and
/// about 1,400 letters outside ASCII, É into é, KELVIN SIGN into k).
///
/// A check of a term in an entry's text (LIKE, which folds A–Z alone) finds the term as the
/// index does unless the text holds a character that only the tokenizer folds into one of the
/// term's (`signs(foldedInto:)`): only entries holding one need the index probed, which cost
/// 160 µs to 2.5 ms an entry at a million entries.
///
/// For a term of ASCII and caseless characters (most terms) the two such signs are known; for
/// any other, the fold of every code point is read from the tokenizer itself (`table`) rather
/// than copied from SQLite's tables, which would drift from the library the server links.
/// `ShortTermIndexTests.theFoldReadFromTheTokenizerIsTheIndexs` holds both to the index.
struct TrigramFold: Sendable {
    /// The fold of each code point the tokenizer changes, but A–Z.
    private let folds: [UInt32: UInt32]
    /// The code points the tokenizer folds into each code point, but A–Z and itself.
    private let foldedInto: [UInt32: [UInt32]]

    /// The linked SQLite's fold of every code point, read once, on first use (50–60 ms, at
    /// about 50 ns a code point: `warmUp()` reads it early), or nil where the tokenizer could
    /// not be read: such terms are then probed in the index, as before the fold was known.
    static let table: TrigramFold? = try? TrigramFold(DatabaseQueue())

    /// Reads the fold of every code point but NUL and the surrogates, by tokenizing one text
    /// of all of them: each trigram starts with the fold of the code point where it starts.
    init(_ queue: DatabaseQueue) throws {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(4 * 0x110000)
        for code in UInt32(1)...0x10FFFF {
            if let scalar = Unicode.Scalar(code) { utf8.append(contentsOf: UTF8.encode(scalar)!) }
        }
        // Two more, so that the last code point starts a trigram too.
        utf8.append(contentsOf: "qq".utf8)
        var pairs = FoldedPairs(text: utf8)
        try queue.inDatabase { db in
            let tokenizer = try db.makeTokenizer(FTS5TokenizerDescriptor(components: ["trigram"]))
            let result = utf8.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { bytes in
                    withUnsafeMutablePointer(to: &pairs) { context in
                        tokenizer.tokenize(
                            context: context, tokenization: .document, pText: bytes.baseAddress, nText: CInt(bytes.count),
                            tokenCallback: { context, _, token, tokenLength, start, _ in
                                guard let context, let token else { return SQLITE_ERROR }
                                let pairs = context.assumingMemoryBound(to: FoldedPairs.self)
                                let folded = UnsafeRawBufferPointer(start: token, count: Int(tokenLength))
                                pairs.pointee.add(start: Int(start), folded: folded.bindMemory(to: UInt8.self))
                                return SQLITE_OK
                            })
                    }
                }
            }
            guard result == SQLITE_OK, pairs.tokens == 0x10FFFF - 2048 else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "the trigram tokenizer's fold could not be read")
            }
        }
        folds = pairs.folds
        foldedInto = pairs.folds.reduce(into: [:]) { into, pair in into[pair.value, default: []].append(pair.key) }
            .mapValues { $0.sorted() }
    }

    /// `term` folded as the tokenizer folds it.
    func folded(_ term: String) -> String {
        var folded = String.UnicodeScalarView()
        for scalar in term.unicodeScalars { folded.append(self.folded(scalar)) }
        return String(folded)
    }

    func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if ("A"..."Z").contains(scalar) { return Unicode.Scalar(scalar.value + 0x20)! }
        return folds[scalar.value].flatMap(Unicode.Scalar.init) ?? scalar
    }

    /// The characters other than A–Z that the tokenizer folds into one of the characters of
    /// `term` folded. Nil when a character of the folded term would fold again (none does in
    /// SQLite 3.40.1): LIKE could then not stand for the index.
    func signs(foldedInto term: String) -> [String]? {
        let folded = folded(term).unicodeScalars
        guard folded.allSatisfy({ self.folded($0) == $0 }) else { return nil }
        var seen = Set<UInt32>()
        return folded.flatMap { foldedInto[$0.value] ?? [] }.filter { seen.insert($0).inserted }
            .compactMap(Unicode.Scalar.init).map(String.init)
    }

    /// The UTF-8 of `text` folded as the tokenizer folds it.
    func foldedBytes(of text: String) -> [UInt8] {
        var folded: [UInt8] = []
        folded.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                folded.append(("A"..."Z").contains(scalar) ? UInt8(scalar.value + 0x20) : UInt8(scalar.value))
            } else {
                folded.append(contentsOf: UTF8.encode(self.folded(scalar))!)
            }
        }
        return folded
    }
}

// MARK: - Terms, folded without the table where they can be

extension TrigramFold {
    /// `term` folded as the tokenizer folds it, or nil where the fold is unknown.
    static func folded(_ term: String) -> String? {
        isASCIIOrCaseless(term) ? term.lowercased() : table?.folded(term)
    }

    /// The characters other than A–Z that the tokenizer folds into one of the characters of
    /// `term` folded: where a text holds none, LIKE finds the folded term exactly where the
    /// index finds it. None for 雨でした (nothing folds into kana or kanji), KELVIN SIGN and
    /// LONG S for `kiss`, É for `café`; nil where the fold is unknown.
    static func signs(foldedInto term: String) -> [String]? {
        guard isASCIIOrCaseless(term) else { return table?.signs(foldedInto: term) }
        let letters = Set(term.lowercased())
        let signs: [(letter: Character, sign: String)] = [("k", "\u{212A}"), ("s", "\u{017F}")]
        return signs.filter { letters.contains($0.letter) }.map(\.sign)
    }

    /// Whether a text folded as the chunks fold it (`EntryChunks.fold`: A–Z, KELVIN SIGN and
    /// LONG S) may hold `term` folded where the tokenizer finds it in fewer places: any term
    /// but one of ASCII and caseless characters is then counted in texts folded whole
    /// (`foldedBytes(of:)`).
    static func foldsBeyondEntryChunks(_ term: String) -> Bool {
        !isASCIIOrCaseless(term)
    }

    /// Reads `table` on another thread, so that no request waits for it.
    static func warmUp() {
        Thread.detachNewThread { _ = table }
    }

    static func isASCIIOrCaseless(_ term: String) -> Bool {
        term.unicodeScalars.allSatisfy { scalar in scalar.isASCII || caselessBlocks.contains { $0.contains(scalar.value) } }
    }

    /// Blocks of scripts without case: CJK Symbols and Punctuation, Hiragana, Katakana, CJK
    /// Unified Ideographs and Extension A, Hangul Syllables, Halfwidth Katakana. Nothing folds
    /// into one of their characters but itself, so a column holds a term of them (and ASCII)
    /// as the tokenizer folds it where LIKE finds it, and a walk need not probe the index:
    /// page 5 of 雨でした (in 48 % of a million entries) newest first took 76 ms so, where each
    /// entry without the term was probed, and 7.6 without the probe.
    static let caselessBlocks: [ClosedRange<UInt32>] = [
        0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xFF61...0xFF9F,
    ]
}

/// The code points a tokenization folded, collected by its callback.
private struct FoldedPairs {
    let text: [UInt8]
    var folds: [UInt32: UInt32] = [:]
    var tokens = 0

    /// A trigram `folded` that starts at byte `start` of the text: its first code point is the
    /// fold of the text's code point there.
    mutating func add(start: Int, folded: UnsafeBufferPointer<UInt8>) {
        tokens += 1
        let original = text.withUnsafeBufferPointer { Self.firstScalar(UnsafeBufferPointer(rebasing: $0[start...])) }
        let fold = Self.firstScalar(folded)
        if let original, let fold, original != fold, !(0x41...0x5A).contains(original) {
            folds[original] = fold
        }
    }

    /// The code point the UTF-8 `bytes` start with (valid UTF-8, as SQLite hands tokens back).
    static func firstScalar(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard let lead = bytes.first else { return nil }
        let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard bytes.count >= length else { return nil }
        guard length > 1 else { return UInt32(lead) }
        var value = UInt32(lead) & (0xFF >> (length + 1))
        for index in 1..<length { value = value << 6 | UInt32(bytes[index] & 0x3F) }
        return value
    }
}
