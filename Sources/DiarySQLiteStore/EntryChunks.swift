import DiaryAPI
import GRDB
import GRDBSQLite

/// The chunks of an entry's `title || ' ' || body` as `entries_chunks` and `entry_vocabulary`
/// hold them (schema-v8.sql, `TermChunks`): runs between spaces, tabs, CRs and LFs, each folded
/// as the trigram tokenizer folds whatever it folds into ASCII, and only those holding an ASCII
/// letter or digit, each once.
///
/// The fold: A–Z to a–z, KELVIN SIGN (U+212A) to k and LONG S (U+017F) to s, every other
/// character as it is. SQLite 3.40.1's trigram tokenizer folds exactly those two characters
/// outside ASCII into ASCII (`TrigramFold`), so an all-ASCII term is
/// in a title or body as the trigram index finds it exactly where it is in one of its chunks
/// so folded: the chunks then hold the term, and the text need not be checked.
enum EntryChunks {
    /// Calls `body` with each distinct chunk of the UTF-8 `text` that holds an ASCII letter or
    /// digit, folded, and the range of bytes it came from; with `pairs`, also with the bucket
    /// of each two neighbouring such chunks (`pairToken`), each distinct bucket once. Stops at
    /// the first result that is not `SQLITE_OK`.
    static func forEach(
        in text: UnsafeBufferPointer<UInt8>, pairs: Bool = false,
        _ body: (_ token: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> CInt
    ) -> CInt {
        var seen = Set<[UInt8]>()
        var seenPairs = Set<UInt32>()
        var chunk: [UInt8] = []
        chunk.reserveCapacity(64)
        // The chunk before, while no chunk without a letter or digit came after it.
        var previous: (chunk: [UInt8], start: Int)?
        var start = 0
        var holdsWordCharacter = false
        var offset = 0
        func flush(upTo end: Int) -> CInt {
            defer {
                chunk.removeAll(keepingCapacity: true)
                holdsWordCharacter = false
            }
            guard !chunk.isEmpty else { return SQLITE_OK }
            guard holdsWordCharacter else {
                previous = nil
                return SQLITE_OK
            }
            if pairs, let before = previous {
                let bucket = pairBucket(before.chunk, chunk)
                if seenPairs.insert(bucket).inserted {
                    let result = pairToken(bucket).withUnsafeBufferPointer { body($0, before.start..<end) }
                    if result != SQLITE_OK { return result }
                }
            }
            if pairs { previous = (chunk, start) }
            guard seen.insert(chunk).inserted else { return SQLITE_OK }
            return chunk.withUnsafeBufferPointer { body($0, start..<end) }
        }
        while offset < text.count {
            let byte = text[offset]
            if byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A {
                let result = flush(upTo: offset)
                if result != SQLITE_OK { return result }
                offset += 1
                start = offset
                continue
            }
            let (folded, length) = fold(text, at: offset)
            if folded.isASCIIWordCharacter { holdsWordCharacter = true }
            chunk.append(folded)
            offset += length
        }
        return flush(upTo: text.count)
    }

    /// How many buckets the pairs of neighbouring chunks are hashed into. Kept as text, the
    /// pairs would be nearly as many tokens as the entries have words (most pairs are in one
    /// entry only); hashed, the other pairs of a bucket add candidates, which the check drops.
    static let pairBuckets: UInt32 = 1 << 20

    /// The bucket of two neighbouring chunks: FNV-1a over `first`, a space and `second`. Kept in
    /// the index, so it must never change for a file already written.
    static func pairBucket(_ first: [UInt8], _ second: [UInt8]) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        func add(_ byte: UInt8) { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        first.forEach(add)
        add(0x20)
        second.forEach(add)
        return hash & (pairBuckets - 1)
    }

    /// The token of a bucket: a space and five hexadecimal digits, which no chunk can be (a
    /// chunk holds no space).
    static func pairToken(_ bucket: UInt32) -> [UInt8] {
        let digits = String(bucket, radix: 16)
        return Array((" " + String(repeating: "0", count: 5 - digits.count) + digits).utf8)
    }

    /// The whole of `text`, folded (`fold`).
    static func folded(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var folded: [UInt8] = []
        folded.reserveCapacity(text.count)
        var offset = 0
        while offset < text.count {
            let (byte, length) = fold(text, at: offset)
            folded.append(byte)
            offset += length
        }
        return folded
    }

    /// The whole of `text`'s UTF-8, folded (`fold`).
    static func folded(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { folded($0) }
    }

    /// The byte at `offset` folded, with how many bytes it stands for: a KELVIN SIGN
    /// (E2 84 AA) or a LONG S (C5 BF) as its ASCII letter, A–Z lowered, any other byte itself
    /// (the bytes of any other character each stand for themselves).
    static func fold(_ text: UnsafeBufferPointer<UInt8>, at offset: Int) -> (byte: UInt8, length: Int) {
        let byte = text[offset]
        if byte == 0xE2, offset + 2 < text.count, text[offset + 1] == 0x84, text[offset + 2] == 0xAA { return (UInt8(ascii: "k"), 3) }
        if byte == 0xC5, offset + 1 < text.count, text[offset + 1] == 0xBF { return (UInt8(ascii: "s"), 2) }
        return ((0x41...0x5A).contains(byte) ? byte + 0x20 : byte, 1)
    }

    /// The distinct chunks of `text`, folded, as a JSON array of strings: what `entry_vocabulary`'s
    /// triggers read with `json_each` (`diary_chunk_list`).
    static func jsonArray(of text: String) -> String {
        var chunks: [String] = []
        var text = text
        _ = text.withUTF8 { utf8 in
            forEach(in: utf8) { chunk, _ in
                chunks.append(String(decoding: chunk, as: UTF8.self))
                return SQLITE_OK
            }
        }
        var json = JSONBytes(capacity: text.utf8.count + 2 * chunks.count + 2)
        json.array(chunks) { json, chunk in json.string(chunk) }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// `diary_chunk_list(text)`: `jsonArray(of:)`, NULL for NULL.
    static let listFunction = DatabaseFunction("diary_chunk_list", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(jsonArray(of:))
    }
}

extension UInt8 {
    /// a–z or 0–9 (a folded byte).
    fileprivate var isASCIIWordCharacter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

/// The FTS5 tokenizer of `entries_chunks`: an entry's distinct chunks (`EntryChunks`) and the
/// buckets of its pairs of neighbouring chunks. A query is one token, the whole text folded:
/// the store sends chunks of `entry_vocabulary`, or buckets.
final class ChunkTokenizer: FTS5CustomTokenizer {
    static let name = "diary_chunks"

    init(db: Database, arguments: [String]) throws {}

    func tokenize(
        context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization,
        pText: UnsafePointer<CChar>?, nText: CInt, tokenCallback: @escaping FTS5TokenCallback
    ) -> CInt {
        guard let pText, nText > 0 else { return SQLITE_OK }
        let text = UnsafeRawBufferPointer(start: pText, count: Int(nText)).bindMemory(to: UInt8.self)
        if tokenization.contains(.query) {
            return EntryChunks.folded(text).withUnsafeBufferPointer { token in
                token.withMemoryRebound(to: CChar.self) { token in
                    tokenCallback(context, 0, token.baseAddress, CInt(token.count), 0, nText)
                }
            }
        }
        return EntryChunks.forEach(in: text, pairs: true) { chunk, range in
            chunk.withMemoryRebound(to: CChar.self) { chunk in
                tokenCallback(context, 0, chunk.baseAddress, CInt(chunk.count), CInt(range.lowerBound), CInt(range.upperBound))
            }
        }
    }
}
