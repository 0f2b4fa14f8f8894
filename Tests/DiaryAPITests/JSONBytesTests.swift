import DiaryAPI
import SeededRandom
import Foundation
import Testing

/// `JSONBytes` replaces Foundation's encoder for the models read most: the output must be the
/// same bytes, or ETags and cached answers would change with it.
@Suite struct JSONBytesTests {
    static let encoder = DiaryJSON.makeEncoder()

    /// Every ASCII character (control characters, quotes, `\`, `/`, DEL), the separators JSON
    /// allows but JavaScript did not, a BOM, Japanese, emoji, combining marks and an empty string.
    static let texts: [String] = {
        var ascii = ""
        for value in 0..<0x80 { ascii.unicodeScalars.append(Unicode.Scalar(value)!) }
        return [ascii, "", "京都の日記：今日は晴れ。", "😀👨‍👩‍👧 e\u{301}", "\u{2028}\u{2029}\u{FEFF}\u{80}\u{9F}",
                "</script><mark>x</mark> & \"quoted\" \\ back\\slash", String(repeating: "long line \t", count: 300)]
    }()

    static func entry(_ id: Int64, text: String, snippet: String?) -> Entry {
        Entry(
            id: id, diaryID: id / 2 - 1, author: text, title: text, body: text + text,
            created: Date(timeIntervalSince1970: 1_795_321_800 + Double(id % 1_000_000)), updated: Date(timeIntervalSince1970: 4_102_444_799),
            tags: id % 2 == 0 ? [] : [text, "tag"], snippet: snippet
        )
    }

    func expectSame<T: Encodable & JSONWritable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let foundation = try Array(Self.encoder.encode(value))
        #expect(value.jsonBytes == foundation, "\(String(decoding: foundation.prefix(200), as: UTF8.self))", sourceLocation: sourceLocation)
    }

    @Test func entriesWithAndWithoutSnippetsAndTags() throws {
        for (index, text) in Self.texts.enumerated() {
            try expectSame(Self.entry(Int64(index), text: text, snippet: nil))
            try expectSame(Self.entry(Int64(index) + 1, text: text, snippet: "…<mark>\(text)</mark>…"))
        }
        try expectSame(Self.entry(Int64.min, text: "min", snippet: ""))
        try expectSame(Self.entry(Int64.max, text: "max", snippet: nil))
    }

    @Test func pagesWithEveryNeighbourAndCursorCombination() throws {
        let entries = Self.texts.enumerated().map { Self.entry(Int64($0.offset), text: $0.element, snippet: nil) }
        for (page, total) in [(1, 0), (1, 100), (2, 100), (5, 100), (6, 100), (Int.max, 3)] {
            for cursor in [nil, "abc-_.~", "\"odd\\cursor\""] {
                try expectSame(EntryPage(entries: page == 1 ? entries : [], page: page, perPage: 20, total: total, nextCursor: cursor))
            }
        }
        for more in [false, true] {
            try expectSame(EntryPage(entries: entries, page: 3, perPage: 20, total: 10_000, totalIsEstimate: true, moreFollow: more))
        }
    }

    @Test func diariesAndTheirList() throws {
        let diaries = Self.texts.enumerated().map { index, text in
            Diary(id: Int64(index), owner: text, title: text, entryCount: index * 1000, created: Date(timeIntervalSince1970: 0), updated: Date(timeIntervalSince1970: 1_795_321_800.9))
        }
        for diary in diaries { try expectSame(diary) }
        try expectSame(DiaryList(diaries: diaries))
        try expectSame(DiaryList(diaries: []))
    }

    /// Strings from random Unicode scalars, seeded so that a failure can be replayed.
    @Test func randomStrings() throws {
        var random = SplitMix64(seed: 0x5EED)
        func next() -> UInt64 { random.next() >> 1 }
        for _ in 0..<300 {
            var text = ""
            for _ in 0..<Int(next() % 40) {
                let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x3000...0x9FFF, 0x1F300...0x1FAFF]
                let range = ranges[Int(next() % 4)]
                if let scalar = Unicode.Scalar(range.lowerBound + UInt32(next() % UInt64(range.count))) {
                    text.unicodeScalars.append(scalar)
                }
            }
            try expectSame(Self.entry(Int64(next()), text: text, snippet: text))
        }
    }
}
