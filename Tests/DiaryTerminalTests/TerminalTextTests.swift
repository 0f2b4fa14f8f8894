import DiaryAPI
import DiaryTerminal
import Foundation
import Testing

@Suite struct DisplayWidthTests {
    @Test func wideCharactersAndEmojiTakeTwoColumnsMarksNone() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("京都で紅葉") == 10)
        #expect(DisplayWidth.of("ｶﾀｶﾅ") == 4)          // half-width katakana: one column each
        #expect(DisplayWidth.of("ＡＢ") == 4)            // full-width Latin
        #expect(DisplayWidth.of("😀🍁") == 4)
        #expect(DisplayWidth.of("é") == 1 && DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("❤️") == 2)              // text heart with emoji presentation selector
        #expect(DisplayWidth.of("\u{1B}[1mbold\u{1B}[0m") == 4)
        #expect(DisplayWidth.of("한국어") == 6)
    }

    @Test func tablesAlignJapaneseTitles() {
        let rows = DisplayFormat.table([["1", "京都", "x"], ["22", "Tokyo", "y"]])
        #expect(rows == ["1   京都   x", "22  Tokyo  y"])
        #expect(Set(rows.map { DisplayWidth.of($0) }).count == 1)
    }

    @Test func wrapsByColumnsAtSpacesAndBetweenCJKCharacters() {
        #expect(DisplayWidth.wrap("the quick brown fox", to: 10) == ["the quick", "brown fox"])
        #expect(DisplayWidth.wrap("京都で紅葉を見た", to: 6) == ["京都で", "紅葉を", "見た"])
        #expect(DisplayWidth.wrap("abcdefghij", to: 4) == ["abcd", "efgh", "ij"])
        #expect(DisplayWidth.wrap("", to: 4) == [""])
        for line in DisplayWidth.wrap("Autumn in 京都: the leaves 🍁 turned red along the river.", to: 12) {
            #expect(DisplayWidth.of(line) <= 12, "\(line)")
        }
        #expect(DisplayWidth.truncate("京都で紅葉を見た", to: 7) == "京都で…")
        #expect(DisplayWidth.pad("京", to: 4) == "京  ")
    }
}

@Suite struct TerminalMarkdownTests {
    let plain = TerminalMarkdown(style: .plain, width: 40)
    let color = TerminalMarkdown(style: DisplayStyle(timeZone: DisplayStyle.plain.timeZone, color: true), width: 40)

    @Test func blocksAreLaidOutForTheWidth() {
        let markdown = """
            # Autumn in Kyoto

            We walked **along** the *river*, and saw [the temple](https://example.com/t).

            - first item that is long enough to wrap onto a second line
            - second
            1. one
            > a quote
            ```
            let x = 1
            ```
            ---
            """
        #expect(plain.render(markdown) == [
            "Autumn in Kyoto",
            "═══════════════",
            "",
            "We walked along the river, and saw the",
            "temple <https://example.com/t>.",
            "",
            "• first item that is long enough to wrap",
            "  onto a second line",
            "• second",
            "1. one",
            "│ a quote",
            "    let x = 1",
            "",
            String(repeating: "─", count: 40),
        ])
    }

    @Test func aBlankLineSeparatesListsAndQuotesFromWhatFollows() {
        #expect(plain.render("- coffee\n- bread\n\n> 鴨川の朝\n\nAfter.") == ["• coffee", "• bread", "", "│ 鴨川の朝", "", "After."])
    }

    @Test func boldAndEmphasisAreEscapesOnlyWithColour() {
        #expect(color.render("a **b** *c* d") == ["a \u{1B}[1mb\u{1B}[22m \u{1B}[3mc\u{1B}[23m d"])
        #expect(color.render("## Title") == ["\u{1B}[1mTitle\u{1B}[0m", "─────"])
        #expect(plain.render("snake_case_name and 2 * 3 * 4") == ["snake_case_name and 2 * 3 * 4"])
        #expect(TerminalMarkdown(style: .plain, width: 60).render("`**not bold**` ![a cat](https://c.example)") == ["**not bold** [image: a cat] <https://c.example>"])
    }

    @Test func anAuthorsControlCharactersCannotReachTheTerminal() {
        let hostile = "red \u{1B}[31mtext\u{1B}[0m and a bell\u{07}"
        for line in color.render(hostile) + plain.render(hostile) {
            #expect(!line.contains("\u{1B}[31m") && !line.contains("\u{07}"), "\(line)")
        }
        #expect(plain.render(hostile) == ["red ^[[31mtext^[[0m and a bell^G"])
        #expect(plain.render("<script>alert(1)</script>") == ["<script>alert(1)</script>"])
    }

    @Test func japaneseParagraphsWrapByColumns() {
        let lines = TerminalMarkdown(style: .plain, width: 20).render("京都で紅葉を見た。川沿いを歩いて、お寺まで行った。とても綺麗だった。")
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= 20 })
    }
}
