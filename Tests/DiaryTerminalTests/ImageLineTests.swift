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
}
