import DiaryAPI
import DiaryTerminal
import Testing

@Suite struct DisplayFormatTests {
    /// A snippet is HTML: its marks become brackets or bold, its entities the characters again,
    /// and a `<mark>` written in a body shows as text, not as a match.
    @Test func showsASnippetAsText() {
        let html = "a &lt;mark&gt;b&lt;/mark&gt; &amp;lt; <mark>c &amp; d</mark> it&#39;s &quot;e&quot;"
        #expect(DisplayFormat.snippet(html, highlight: .brackets) == #"a <mark>b</mark> &lt; [c & d] it's "e""#)
        #expect(DisplayFormat.snippet("<mark>x</mark>", highlight: .bold) == "\u{1B}[1mx\u{1B}[0m")
    }
}
