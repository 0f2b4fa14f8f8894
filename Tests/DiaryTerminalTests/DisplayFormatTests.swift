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

    /// A search's estimated total reads "10,000+", in the footer's count and its pages.
    @Test func anEstimatedTotalSaysThatMoreMatch() {
        let estimate = EntryPage(entries: [], page: 3, perPage: 20, total: 10_000, totalIsEstimate: true, moreFollow: true)
        #expect(DisplayFormat.pageFooter(estimate) == "page 3 of 500+ · 10,000+ entries · next: diary list --page 4")
        #expect(DisplayFormat.count(estimate, "result", "results") == "10,000+ results")
        let exact = EntryPage(entries: [], page: 1, perPage: 20, total: 1)
        #expect(DisplayFormat.pageFooter(exact) == "page 1 of 1 · 1 entry")
        #expect(DisplayFormat.count(exact, "result", "results") == "1 result")
    }
}
