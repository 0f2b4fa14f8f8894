import DiaryAPI
import StoreKernel
import Testing

/// The `snippet` of search results: the window, the marks and the escaping.
@Suite struct SnippetTests {
    /// Found by `diary-fuzz --seed 392084`: a second term matching only past the window trapped.
    @Test func leavesOutMatchesPastTheSnippet() {
        let body = "needle " + String(repeating: "x", count: 200) + " thread"
        let snippet = Snippet.make(title: "", body: body, terms: ["thread", "needle"])
        #expect(snippet == "<mark>needle</mark> " + String(repeating: "x", count: Snippet.length - 7) + "…")
        #expect(Snippet.make(title: "", body: "ab", terms: ["b", "ab", "abc"]) == "<mark>ab</mark>")
    }

    /// The snippet is HTML: a body's markup is text in it, and only the real matches are marked.
    @Test func escapesTheTextOfASnippet() {
        let body = #"if a < b && c > "d" it's <mark>no match</mark>, the needle is"#
        let snippet = Snippet.make(title: "", body: body, terms: ["needle", "b &"])
        #expect(snippet == "if a &lt; <mark>b &amp;</mark>&amp; c &gt; &quot;d&quot; it&#39;s &lt;mark&gt;no match&lt;/mark&gt;, the <mark>needle</mark> is")
        #expect(SnippetMarkup.unescaped(SnippetMarkup.escaped(body + " &amp;lt;")) == body + " &amp;lt;")
    }

    /// Only the first `scanLimit` characters are searched, so a 2 MiB body costs what 10,000 do.
    @Test func looksForMatchesInTheLeadingCharactersOnly() {
        let filler = String(repeating: "x", count: Snippet.scanLimit - 6)
        let early = Snippet.make(title: "", body: filler + "needle" + "y", terms: ["needle"])
        #expect(early == "…" + String(repeating: "x", count: Snippet.length - 6) + "<mark>needle</mark>…")
        #expect(Snippet.make(title: "", body: filler + "xneedle", terms: ["needle"]) == nil)
        #expect(Snippet.make(title: "needle", body: filler + "xneedle", terms: ["needle"]) == "<mark>needle</mark>")
    }
}
