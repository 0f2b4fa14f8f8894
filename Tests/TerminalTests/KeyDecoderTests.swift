import Terminal
import Testing

@Suite struct KeyDecoderTests {
    private func keys(_ bytes: [UInt8], flush: Bool = true) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.feed(bytes) + (flush ? decoder.flush() : [])
    }

    @Test func lettersControlsAndText() {
        #expect(keys(Array("jk q".utf8)) == [.character("j"), .character("k"), .character(" "), .character("q")])
        #expect(keys([0x03, 0x0D, 0x0A, 0x7F, 0x09]) == [.control("c"), .enter, .enter, .backspace, .tab])
        #expect(keys(Array("京都🍁".utf8)) == [.character("京"), .character("都"), .character("🍁")])
    }

    @Test func sequencesOfXtermTmuxAndTheConsole() {
        let cases: [(String, Key)] = [
            ("\u{1B}[A", .up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
            ("\u{1B}OA", .up), ("\u{1B}OB", .down), ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown),
            ("\u{1B}[H", .home), ("\u{1B}[F", .end), ("\u{1B}[1~", .home), ("\u{1B}[4~", .end),
            ("\u{1B}[1;5A", .up), ("\u{1B}[2~", .unknown),
        ]
        for (sequence, key) in cases {
            #expect(keys(Array(sequence.utf8), flush: false) == [key], "\(sequence.debugDescription)")
        }
    }

    @Test func aLoneEscapeWaitsForTheRestThenIsTheEscapeKey() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.isWaiting)
        #expect(decoder.feed(Array("[B".utf8)) == [.down])
        #expect(!decoder.isWaiting)

        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.flush() == [.escape])
        // Esc then a letter typed quickly: both keys.
        #expect(keys(Array("\u{1B}q".utf8)) == [.escape, .character("q")])
    }

    @Test func utf8SplitAcrossReadsIsOneCharacter() {
        var decoder = KeyDecoder()
        let bytes = Array("紅".utf8)
        #expect(decoder.feed(bytes.prefix(2)).isEmpty)
        #expect(decoder.feed(bytes.suffix(1)) == [.character("紅")])
        // Invalid bytes are skipped, not fatal.
        #expect(keys([0xFF, 0x61]) == [.unknown, .character("a")])
    }
}
