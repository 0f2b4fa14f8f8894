import Foundation
import DiaryAPI
import DiaryTerminal
import Testing

@Suite struct ImageLineTests {
    @Test func anImageIsOneLineWithItsSizeWhenKnown() {
        let id = "0123456789abcdef0123456789abcdef"
        let markdown = TerminalMarkdown(style: DisplayStyle(timeZone: TimeZone(identifier: "UTC")!, color: false), width: 80, imageSizes: [id: (width: 2048, height: 1536)])
        #expect(markdown.render("![Eikan-do at dusk](/media/\(id))") == ["[image: Eikan-do at dusk · 2048×1536] </media/\(id)>"])
        #expect(markdown.render("![elsewhere](https://example.com/a.png)") == ["[image: elsewhere] <https://example.com/a.png>"])
    }

    @Test func anImageIsAHyperlinkToItsAbsoluteURLWhenTheStyleMakesThem() {
        let id = "0123456789abcdef0123456789abcdef"
        let style = DisplayStyle(timeZone: TimeZone(identifier: "UTC")!, color: false, hyperlinkBase: URL(string: "http://127.0.0.1:8080/")!)
        let markdown = TerminalMarkdown(style: style, width: 30, imageSizes: [id: (width: 2048, height: 1536)])
        let label = "[image: dusk · 2048×1536]"
        #expect(markdown.render("![dusk](/media/\(id))") == ["\u{1B}]8;;http://127.0.0.1:8080/media/\(id)\u{1B}\\\(label)\u{1B}]8;;\u{1B}\\"])
        // The link takes no columns: the line is as wide as its label.
        #expect(DisplayWidth.of(markdown.render("![dusk](/media/\(id))")[0]) == DisplayWidth.of(label))
        #expect(markdown.render("![x](https://example.com/a.png)") == ["\u{1B}]8;;https://example.com/a.png\u{1B}\\[image: x]\u{1B}]8;;\u{1B}\\"])
    }

    @Test func hyperlinksOnlyOnATerminalThatIsNotDumbAndNotRefused() {
        let site = URL(string: "http://127.0.0.1:8080")!
        func base(_ terminal: Bool, _ environment: [String: String]) -> URL? {
            DisplayStyle.resolve(utc: true, noColor: false, outputIsTerminal: terminal, environment: environment, siteURL: site).hyperlinkBase
        }
        #expect(base(true, ["TERM": "xterm-256color"]) == site)
        #expect(base(false, ["TERM": "xterm-256color"]) == nil)
        #expect(base(true, ["TERM": "dumb"]) == nil)
        #expect(base(true, [:]) == nil)
        #expect(base(true, ["TERM": "tmux-256color", "DIARY_NO_HYPERLINKS": "1"]) == nil)
        #expect(base(true, ["TERM": "tmux-256color", "NO_COLOR": "1"]) == site)
    }
}
