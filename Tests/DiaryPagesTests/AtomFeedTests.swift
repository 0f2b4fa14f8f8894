import DiaryAPI
import DiaryPages
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct AtomFeedTests {
    static let date = RFC3339.date(from: "2026-11-01T09:30:00Z")!

    /// Whatever an author writes, the feed is well-formed XML: control characters XML cannot
    /// hold become U+FFFD, markup in titles and bodies is escaped.
    @Test func aFeedOfHostileEntriesIsWellFormedAtom() throws {
        let entries = HostileMarkup.bodies.enumerated().map { index, body in
            Entry(
                id: Int64(index + 1), diaryID: 1, author: "a<b>&\"", title: "</title>\u{1}\(body.prefix(30))", body: body + "\u{0}\u{B}\u{FFFE}",
                created: Self.date, updated: Self.date, tags: ["\"><x>"]
            )
        }
        let feed = AtomFeed(title: "Diary & <co>", baseURL: "https://diary.example", selfPath: "/feed.atom", alternatePath: "/", updated: Self.date, entries: entries)
        let bytes = feed.render()
        let parser = XMLParser(data: Data(bytes))
        let counter = ElementCounter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(counter.counts["entry"] == entries.count)
        #expect(counter.counts["content"] == entries.count)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"https://diary.example/\">"))
        #expect(text.contains("<id>https://diary.example/entries/1</id>"))
        #expect(text.contains("<published>2026-11-01T09:30:00Z</published>"))
        #expect(!text.contains("<script"))
    }

    /// A search page says how many entries match, "10,000+" past the count's bound.
    @Test func aSearchPageSaysHowManyMatch() {
        let renderer = PageRenderer()
        let subject = EntryListing.Subject.search(query: "coffee", problem: nil)
        for (total, estimate, text) in [(1, false, "1 entry matches"), (57, false, "57 entries match"), (10_000, true, "10,000+ entries match")] {
            let html = String(decoding: renderer.list(EntryListing(subject: subject, entries: [], total: total, totalIsEstimate: estimate)), as: UTF8.self)
            #expect(html.contains("<p class=\"page-meta\">\(text)"), "\(html)")
        }
    }

    @Test func pagesEscapeEveryNameTitleAndTag() {
        let entry = Entry(
            id: 7, diaryID: 3, author: "<i>al</i>", title: "</title><script>x</script>", body: "ok", created: Self.date, updated: Self.date,
            tags: ["\"onmouseover=x"]
        )
        let diary = Diary(id: 3, owner: "<i>al</i>", title: "<svg onload=x>", entryCount: 1, created: Self.date, updated: Self.date)
        let renderer = PageRenderer()
        for bytes in [
            renderer.entry(EntryReading(entry: entry, diary: diary)),
            renderer.list(EntryListing(subject: .diary(diary), entries: [entry], diaryTitles: [3: diary.title], total: 1)),
            renderer.list(EntryListing(subject: .tag(entry.tags[0]), entries: [entry], diaryTitles: [3: diary.title], total: 1)),
            renderer.list(EntryListing(subject: .search(query: "\"><script>", problem: "<b>bad</b>"), entries: [], total: 0)),
            renderer.error(status: 404, title: "<b>t</b>", detail: "<script>"),
        ] {
            let html = String(decoding: bytes, as: UTF8.self)
            #expect(!html.contains("<script") && !html.contains("<svg") && !html.contains("<i>") && !html.contains("<b>"), "\(html)")
            #expect(!html.contains("\"onmouseover"), "\(html)")
            #expect(html.contains("<main id=\"main\" class=\"wrap\">") && html.hasSuffix("</html>\n"))
        }
    }
}

final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
        counts[name, default: 0] += 1
    }
}
