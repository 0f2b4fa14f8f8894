import DiaryAPI
@testable import DiaryPages
import SeededRandom
import Testing

@Suite struct SafeMarkdownTests {
    @Test(arguments: HostileMarkup.bodies)
    func aHostileBodyRendersToNothingThatRuns(body: String) {
        let html = SafeMarkdown.html(body)
        #expect(HostileMarkup.problems(in: html) == [], "\(body.debugDescription) gave \(html)")
    }

    /// An author's HTML is shown as they typed it: as text, whatever the tag.
    @Test func rawHTMLIsShownAsText() {
        #expect(SafeMarkdown.html("<b>bold</b> and <em>em</em>") == "<p>&lt;b&gt;bold&lt;/b&gt; and &lt;em&gt;em&lt;/em&gt;</p>")
        #expect(SafeMarkdown.html("I like <pizza") == "<p>I like &lt;pizza</p>")
        #expect(SafeMarkdown.html("<div>\nblock\n</div>").contains("&lt;div&gt;"))
        #expect(SafeMarkdown.html("a <a href=\"https://ok.example\">link</a>") == "<p>a &lt;a href=\"https://ok.example\"&gt;link&lt;/a&gt;</p>")
        #expect(SafeMarkdown.html("<img src=\"https://ok.example/a.png\">") == "<p>&lt;img src=\"https://ok.example/a.png\"&gt;</p>")
    }

    /// Inputs on which Ink 0.6.0 alone never returns (`<p` with no `>` after it) or stops the
    /// process (a list ending in a line of spaces, `---` metadata running to the end).
    @Test(arguments: [
        "<p", "I like <pizza", "a <P", "x <pre", "# a <p", "- a\n  ", "1. a\n   ", "- a\n\t", "- a\n- b\n   ", "---\nfoo\n",
        "---\n~~~~>on\n", "  ---\nkey: value\n\n",
    ])
    func inputsThatStopInkAloneRender(body: String) {
        let html = SafeMarkdown.html(body)
        #expect(!html.isEmpty)
        #expect(HostileMarkup.problems(in: html) == [], "\(body.debugDescription) gave \(html)")
    }

    @Test func markdownBecomesTheUsualElements() {
        #expect(SafeMarkdown.html("# Kyoto\n\nSome **bold**, *em* and ~~gone~~.") == "<h2>Kyoto</h2><p>Some <strong>bold</strong>, <em>em</em> and <s>gone</s>.</p>")
        #expect(SafeMarkdown.html("## Two\n###### Six") == "<h3>Two</h3><h6>Six</h6>")
        #expect(SafeMarkdown.html("- a\n- b") == "<ul><li>a</li><li>b</li></ul>")
        #expect(SafeMarkdown.html("3. c\n4. d") == "<ol start=\"3\"><li>c</li><li>d</li></ol>")
        #expect(SafeMarkdown.html("> quoted") == "<blockquote><p>quoted</p></blockquote>")
        #expect(SafeMarkdown.html("```swift\nlet a = \"<b>\" && b\n```") == "<pre><code class=\"language-swift\">let a = \"&lt;b&gt;\" &amp;&amp; b\n</code></pre>")
        #expect(SafeMarkdown.html("`a < b`") == "<p><code>a &lt; b</code></p>")
        #expect(SafeMarkdown.html("| a | b |\n|:-|-:|\n| 1 | 2 |") == "<table><thead><tr><th align=\"left\">a</th><th align=\"right\">b</th></tr></thead><tbody><tr><td align=\"left\">1</td><td align=\"right\">2</td></tr></tbody></table>")
        #expect(SafeMarkdown.html("---") == "<hr>")
        #expect(SafeMarkdown.html("紅葉が&amp;きれい &copy; 2026") == "<p>紅葉が&amp;きれい &copy; 2026</p>")
    }

    @Test func linksKeepHTTPMailtoAndRelativeURLs() {
        #expect(SafeMarkdown.html("[a](https://example.com/x?b=1&c=2)") == "<p><a href=\"https://example.com/x?b=1&amp;c=2\" rel=\"nofollow ugc noopener\">a</a></p>")
        #expect(SafeMarkdown.html("[a](http://example.com)") == "<p><a href=\"http://example.com\" rel=\"nofollow ugc noopener\">a</a></p>")
        #expect(SafeMarkdown.html("[mail](mailto:alice@example.com)") == "<p><a href=\"mailto:alice@example.com\">mail</a></p>")
        #expect(SafeMarkdown.html("[next](/entries/2)") == "<p><a href=\"/entries/2\">next</a></p>")
        #expect(SafeMarkdown.html("[top](#top)") == "<p><a href=\"#top\">top</a></p>")
        #expect(SafeMarkdown.html("[a][ref]\n\n[ref]: https://example.com/r") == "<p><a href=\"https://example.com/r\" rel=\"nofollow ugc noopener\">a</a></p>")
        // Refused: the text stays, the link goes.
        #expect(SafeMarkdown.html("[ftp](ftp://example.com/f)") == "<p>ftp</p>")
        #expect(SafeMarkdown.html("[odd](foo:bar)") == "<p>odd</p>")
    }

    @Test func imagesKeepOnlyHTTPAndHTTPS() {
        #expect(SafeMarkdown.html("![a cat](https://example.com/cat.png)") == "<p><img src=\"https://example.com/cat.png\" alt=\"a cat\" loading=\"lazy\" referrerpolicy=\"no-referrer\"></p>")
        #expect(SafeMarkdown.html("![a cat](/cat.png)") == "<p><span class=\"image-refused\">a cat</span></p>")
        #expect(SafeMarkdown.html("![](data:image/png;base64,AAAA)") == "")
    }

    @Test func urlPolicyReadsURLsAsBrowsersDo() {
        for refused in ["javascript:x", " JAVASCRIPT:x", "\u{1}javascript:x", "java\nscript:x", "java\tscript:x", "data:text/html,x", "vbscript:x", "jav\u{0}ascript:x", "foo:bar", ""] {
            #expect(URLPolicy.link.allowed(refused) == nil, "\(refused.debugDescription)")
        }
        #expect(URLPolicy.link.allowed("  https://a.example/x \n") == "https://a.example/x")
        #expect(URLPolicy.link.allowed("HTTPS://a.example") == "HTTPS://a.example")
        #expect(URLPolicy.link.allowed("a/b:c") == "a/b:c")
        #expect(URLPolicy.image.allowed("http://a.example/i.png") == "http://a.example/i.png")
        for refused in ["/i.png", "i.png", "//a.example/i.png", "mailto:a@b", "data:image/png;base64,AA"] {
            #expect(URLPolicy.image.allowed(refused) == nil, "\(refused)")
        }
    }

    /// Ink reads a body starting with `---` up to the next `---` as metadata and drops it; the
    /// text must survive.
    @Test func aBodyStartingWithARuleKeepsItsText() {
        let html = SafeMarkdown.html("---\nmood: happy\n---\nafter")
        #expect(html.contains("mood: happy"), "\(html)")
        #expect(html.contains("after"))
        // The guard Ink is given first is no hiding place: an author's own comment is text.
        #expect(SafeMarkdown.html("<!-- -->") == "<p>&lt;!-- --&gt;</p>")
    }

    @Test func controlCharactersAreReplacedAndCarriageReturnsRead() {
        #expect(SafeMarkdown.html("a\u{1}b\u{7}c") == "<p>a\u{FFFD}b\u{FFFD}c</p>")
        #expect(SafeMarkdown.html("line one\r\n\r\nline two") == "<p>line one</p><p>line two</p>")
    }

    @Test func snippetsKeepOnlyMarks() {
        #expect(SafeMarkdown.snippet("a <mark>b</mark> &lt;script&gt;") == "a <mark>b</mark> &lt;script&gt;")
        #expect(SafeMarkdown.snippet("<script>x</script><mark onclick=\"y\">z</mark>") == "&lt;script&gt;x&lt;/script&gt;<mark>z</mark>")
        #expect(SafeMarkdown.snippet("<mark>open") == "<mark>open</mark>")
    }

    @Test func excerptsAreTheTextCutShort() {
        let html = SafeMarkdown.html("# Title\n\nSome **bold** text &amp; more.\n\n- one\n- two")
        #expect(SafeMarkdown.plainText(ofHTML: html) == "Title Some bold text & more. one two")
        let long = String(repeating: "紅葉", count: 100)
        #expect(SafeMarkdown.excerpt(long).count == 141)
        #expect(SafeMarkdown.excerpt("short") == "short")
    }

    /// Random mixtures of Markdown and HTML syntax: Ink must not crash on any (the server
    /// renders whatever an author wrote) and nothing may come out that runs. Seeded, so a
    /// failure replays.
    @Test func randomMarkupNeverRendersAnythingThatRuns() {
        let pieces = [
            "<", ">", "&", ";", "\"", "'", "`", "```", "[", "]", "(", ")", "!", "*", "**", "_", "~~", "#", "# ", "-", "---", "|", ":",
            "\n", "\n\n", " ", "  ", "\t", "\\", "=", "/", "a", "紅葉", "😀", "javascript:", "data:", "http://x", "on", "onerror=",
            "<script>", "</script>", "<img", "<a href=", "&#106;", "&#x0A;", "&amp;", "&lt;", "\u{1}", "\r\n", "1. ", "> ", "<!--", "-->",
            "<p>", "</p>", "<mark>", "src=", "svg", "style",
        ]
        var random = SplitMix64(seed: 12)
        for round in 0..<3000 {
            let count = 1 + random.next(40)
            let body = (0..<count).map { _ in pieces[random.next(pieces.count)] }.joined()
            let html = SafeMarkdown.html(body)
            let problems = HostileMarkup.problems(in: html)
            #expect(problems == [], "round \(round): \(body.debugDescription) gave \(html)")
            if !problems.isEmpty { return }
        }
    }
}
