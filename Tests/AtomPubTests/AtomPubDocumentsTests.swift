import AtomPub
import DiaryAPI
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct AtomPubDocumentsTests {
    static let date = RFC3339.date(from: "2026-11-01T09:30:00Z")!
    static let edited = RFC3339.date(from: "2026-11-02T10:00:00Z")!
    static let documents = AtomPubDocuments(baseURL: "https://diary.example")

    static func entry(_ id: Int64, body: String = "a < b & \"c\"\r\nline 2 紅葉", draft: Bool = false) -> Entry {
        Entry(
            id: id, diaryID: 3, author: "alice", title: "Title <&> \(id)", body: body, created: date, updated: edited,
            tags: ["travel", "京都"], draft: draft
        )
    }

    /// What the server writes, a client sends back unchanged: every field survives, a CR included.
    @Test func anEntryReadsBackAsItWasWritten() throws {
        let entry = Self.entry(7, draft: true)
        let bytes = Self.documents.entry(entry)
        let document = try AtomEntryParser.parse(bytes)
        #expect(document == AtomEntryDocument(title: entry.title, body: entry.body, tags: entry.tags, date: entry.created, draft: true))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"<link rel="edit" href="https://diary.example/atom/diaries/3/entry/7"/>"#))
        #expect(text.contains(#"<link rel="alternate" type="text/html" href="https://diary.example/entries/7"/>"#))
        #expect(text.contains("<updated>2026-11-01T09:30:00Z</updated>"))
        #expect(text.contains("<app:edited>2026-11-02T10:00:00Z</app:edited>"))
        #expect(text.contains(#"<content type="text/x-markdown">"#))
    }

    @Test func theServiceDocumentListsEachDiaryAsACollectionOfEntries() throws {
        let diaries = [
            Diary(id: 1, owner: "alice", title: "Days & <nights>", entryCount: 2, created: Self.date, updated: Self.date),
            Diary(id: 4, owner: "alice", title: "Work", entryCount: 0, created: Self.date, updated: Self.date),
        ]
        let bytes = Self.documents.service(owner: "alice", diaries: diaries)
        let counts = try Self.elements(bytes)
        #expect(counts["collection"] == 2)
        #expect(counts["accept"] == 2)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"<collection href="https://diary.example/atom/diaries/4/entry">"#))
        #expect(text.contains("<accept>application/atom+xml;type=entry</accept>"))
        #expect(text.contains("<atom:title>Days &amp; &lt;nights&gt;</atom:title>"))
    }

    @Test func aCollectionPageLinksTheNextOneOnlyWhenThereIsOne() throws {
        let diary = Diary(id: 3, owner: "alice", title: "D", entryCount: 2, created: Self.date, updated: Self.edited)
        let entries = [Self.entry(2), Self.entry(1, body: "\u{1}\u{FFFE}<![CDATA[ ]]>")]
        let next = AtomPubPaths.collection(3, cursor: "a+b/c=")
        let paged = try Self.elements(Self.documents.collection(diary: diary, entries: entries, nextPath: next))
        #expect(paged["entry"] == 2)
        let text = String(decoding: Self.documents.collection(diary: diary, entries: entries, nextPath: next), as: UTF8.self)
        #expect(text.contains(#"<link rel="next" type="application/atom+xml" href="https://diary.example/atom/diaries/3/entry?cursor=a%2Bb%2Fc%3D"/>"#))
        let last = String(decoding: Self.documents.collection(diary: diary, entries: [], nextPath: nil), as: UTF8.self)
        #expect(!last.contains(#"rel="next""#))
    }

    /// Parses `bytes` as XML (failing the test if they are not well-formed) and counts elements by name.
    static func elements(_ bytes: [UInt8]) throws -> [String: Int] {
        final class Counter: NSObject, XMLParserDelegate {
            var counts: [String: Int] = [:]
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
                counts[name, default: 0] += 1
            }
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        return counter.counts
    }
}
