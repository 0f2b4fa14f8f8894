import GRDB
import GRDBSQLite

/// The FTS5 tokenizer of `entries_grams`: every distinct character and every distinct pair of
/// neighbouring characters of an entry's `title || ' ' || body`, so that terms of one or two
/// characters (紅葉, 京都, zz, 雨) are found through an index. The trigram tokenizer cannot
/// hold them, and the scan that answered them read every entry (4.8 s at 1,000,000 entries).
///
/// "Character" is a Unicode scalar, as SQLite's `instr` and `length` count them, and case is
/// folded as SQLite's `lower()` folds it, ASCII only: a term of one or two scalars is found in
/// exactly the entries where `instr(lower(title || ' ' || body), lower(term)) > 0`, the scan it
/// replaces. A query (`FTS5Tokenization.query`) is one token: the whole term, folded.
///
/// Registered on every connection that opens a Diary file (`Configuration.diaryTokenizers`):
/// the triggers that keep the index write through it, and a query reads through it.
final class CharacterGramTokenizer: FTS5CustomTokenizer {
    static let name = "diary_grams"

    init(db: Database, arguments: [String]) throws {}

    func tokenize(
        context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization,
        pText: UnsafePointer<CChar>?, nText: CInt, tokenCallback: @escaping FTS5TokenCallback
    ) -> CInt {
        guard let pText, nText > 0 else { return SQLITE_OK }
        let text = UnsafeRawBufferPointer(start: pText, count: Int(nText)).bindMemory(to: UInt8.self)
        let scalars = Self.scalarStarts(text)
        if tokenization.contains(.query) {
            // The term itself: one or two scalars, as the dialect only sends those.
            return Self.emit(text, from: 0, to: text.count, context: context, tokenCallback)
        }
        return KeysSeen.withCapacity(scalars.count * 2) { seen in
            Self.emitDistinct(text, scalars, &seen, context: context, tokenCallback)
        }
    }

    /// Every distinct scalar and pair of neighbouring scalars of `text`, each handed to FTS5 once.
    static func emitDistinct(
        _ text: UnsafeBufferPointer<UInt8>, _ scalars: [Int], _ seen: inout KeysSeen,
        context: UnsafeMutableRawPointer?, _ tokenCallback: FTS5TokenCallback
    ) -> CInt {
        for (index, start) in scalars.enumerated() {
            let end = index + 1 < scalars.count ? scalars[index + 1] : text.count
            let pairEnd = index + 2 < scalars.count ? scalars[index + 2] : text.count
            let single = Self.folded(text, start, end)
            if seen.insert(single << 32) {
                let result = Self.emit(text, from: start, to: end, context: context, tokenCallback)
                if result != SQLITE_OK { return result }
            }
            guard end < text.count else { break }
            // The pair's key: both scalars (21 bits each), the second one plus one so that it
            // never equals a single's key.
            if seen.insert(single << 32 | (Self.folded(text, end, pairEnd) + 1)) {
                let result = Self.emit(text, from: start, to: pairEnd, context: context, tokenCallback)
                if result != SQLITE_OK { return result }
            }
        }
        return SQLITE_OK
    }

    /// A set of the 64-bit keys of `tokenize`: open addressing in a buffer on the stack (or the
    /// heap, past Swift's stack allocation limit), probed linearly from a Fibonacci hash. It
    /// replaces a `Set<UInt64>`, whose SipHash and insertion were 8 % of a first sync's CPU
    /// (perf). The server tokenizes what anyone posts, and a text can be made whose keys share
    /// a run of slots, so a probe stops after `probeLimit` slots and the key goes to a
    /// `Set<UInt64>` (random-seeded SipHash) instead: a key whose run is full once finds it
    /// full again, as nothing leaves the table.
    struct KeysSeen {
        static let probeLimit = 32
        let slots: UnsafeMutableBufferPointer<UInt64>
        let shift: UInt64
        /// The key 0 (a NUL byte alone) cannot be stored: 0 marks an empty slot.
        var hasZero = false
        var overflow = Set<UInt64>()

        /// Runs `body` with an empty set for `count` keys, at most half full.
        static func withCapacity<R>(_ count: Int, _ body: (inout KeysSeen) -> R) -> R {
            var bits = 4
            while 1 << bits < count * 2 { bits += 1 }
            return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 1 << bits) { slots in
                slots.initialize(repeating: 0)
                var seen = KeysSeen(slots: slots, shift: UInt64(64 - bits))
                return body(&seen)
            }
        }

        /// Adds `key`; false when it was there already.
        mutating func insert(_ key: UInt64) -> Bool {
            if key == 0 {
                defer { hasZero = true }
                return !hasZero
            }
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
            for _ in 0..<Self.probeLimit {
                let found = slots[slot]
                if found == key { return false }
                if found == 0 {
                    slots[slot] = key
                    return true
                }
                slot = (slot + 1) & mask
            }
            return overflow.insert(key).inserted
        }
    }

    /// The byte offsets where each scalar of the UTF-8 `text` starts. A byte that cannot start
    /// a scalar (malformed text, which SQLite may hold) counts as one by itself.
    static func scalarStarts(_ text: UnsafeBufferPointer<UInt8>) -> [Int] {
        var starts: [Int] = []
        starts.reserveCapacity(text.count)
        for (offset, byte) in text.enumerated() where byte & 0xC0 != 0x80 || offset == 0 {
            starts.append(offset)
        }
        return starts
    }

    /// The scalar in `text[start..<end]` as a number, ASCII letters lowered: a key, not decoded
    /// UTF-8 (the bytes themselves, which fit: a scalar is at most 4 bytes, and only its 3
    /// last ones vary beyond the lead byte's pattern).
    static func folded(_ text: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> UInt64 {
        var key: UInt64 = 0
        for offset in start..<min(end, start + 4) {
            key = key << 8 | UInt64(lowered(text[offset]))
        }
        return key & 0xFFFF_FFFF
    }

    static func lowered(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// Hands `text[start..<end]`, ASCII letters lowered, to FTS5 as one token.
    static func emit(
        _ text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
        context: UnsafeMutableRawPointer?, _ tokenCallback: FTS5TokenCallback
    ) -> CInt {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: end - start) { token in
            for offset in start..<end {
                token[offset - start] = CChar(bitPattern: lowered(text[offset]))
            }
            return tokenCallback(context, 0, token.baseAddress, CInt(end - start), CInt(start), CInt(end))
        }
    }
}

extension Configuration {
    /// Registers the tokenizers of Diary's full-text indexes on each connection, and the
    /// function that lists an entry's chunks for `entry_vocabulary`: writing an entry, or
    /// reading `entries_grams` or `entries_chunks`, fails with "no such tokenizer" (or
    /// function) without them.
    mutating func registerDiaryTokenizers() {
        prepareDatabase { db in
            db.add(tokenizer: CharacterGramTokenizer.self)
            db.add(tokenizer: ChunkTokenizer.self)
            db.add(function: EntryChunks.listFunction)
        }
    }
}
