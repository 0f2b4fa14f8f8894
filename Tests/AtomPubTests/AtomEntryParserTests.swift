import AtomPub
import DiaryAPI
import Foundation
import Testing

@Suite struct AtomEntryParserTests {
    static let hatenaStyle = """
        <?xml version="1.0" encoding="utf-8"?>
        <entry xmlns="http://www.w3.org/2005/Atom" xmlns:app="http://www.w3.org/2007/app">
          <title>京都の紅葉 &amp; more</title>
          <author><name>alice</name></author>
          <content type="text/x-markdown">**Red** leaves &lt;3
        second line</content>
          <updated>2026-11-22T13:30:00+09:00</updated>
          <category term="Travel" />
          <category term="京都" />
          <app:control><app:draft>yes</app:draft></app:control>
        </entry>
        """

    @Test func readsTheFieldsHatenaBlogSends() throws {
        let document = try AtomEntryParser.parse(Array(Self.hatenaStyle.utf8))
        #expect(document.title == "京都の紅葉 & more")
        #expect(document.body == "**Red** leaves <3\nsecond line")
        #expect(document.tags == ["Travel", "京都"])
        #expect(document.date == RFC3339.date(from: "2026-11-22T04:30:00Z"))
        #expect(document.draft)
    }

    @Test func anEntryWithoutControlIsPublishedAndDated() throws {
        let xml = #"<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title><content><![CDATA[<!DOCTYPE html> in a code block]]></content></entry>"#
        let document = try AtomEntryParser.parse(Array(xml.utf8))
        #expect(!document.draft)
        #expect(document.date == nil)
        #expect(document.body == "<!DOCTYPE html> in a code block")
    }

    /// Each is refused before or by the parser, with a message, never expanded or fetched.
    @Test(arguments: [
        // Billion laughs: entities declared in an internal subset.
        """
        <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
        <entry xmlns="http://www.w3.org/2005/Atom"><title>&lol2;</title></entry>
        """,
        // An external entity (XXE) and an external DTD.
        #"<?xml version="1.0"?><!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]><entry xmlns="http://www.w3.org/2005/Atom"><title>&x;</title></entry>"#,
        #"<!DOCTYPE entry SYSTEM "http://127.0.0.1:1/evil.dtd"><entry xmlns="http://www.w3.org/2005/Atom"><title>t</title></entry>"#,
        // A parameter entity, and a DOCTYPE after a comment.
        #"<!-- hi --><!DOCTYPE e [<!ENTITY % p SYSTEM "http://127.0.0.1:1/x">%p;]><entry xmlns="http://www.w3.org/2005/Atom"/>"#,
        // An entity never declared, malformed XML, and not an Atom entry.
        #"<entry xmlns="http://www.w3.org/2005/Atom"><title>&nope;</title></entry>"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom"><title>t</entry>"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title>"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom">"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title></entry><entry xmlns="http://www.w3.org/2005/Atom"/>"#,
        #"<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>"#,
        #"<entry><title>no namespace</title></entry>"#,
        "",
        // Content Diary cannot keep as Markdown, and fields that are not what Atom says.
        #"<entry xmlns="http://www.w3.org/2005/Atom"><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">x</div></content></entry>"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom"><content type="image/png" src="http://x/y.png"/></entry>"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom"><updated>yesterday</updated></entry>"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom" xmlns:app="http://www.w3.org/2007/app"><app:control><app:draft>maybe</app:draft></app:control></entry>"#,
        #"<entry xmlns="http://www.w3.org/2005/Atom"><category/></entry>"#,
    ])
    func refusesHostileAndMalformedBodies(_ xml: String) {
        #expect(throws: AtomEntryParser.Failure.self) { try AtomEntryParser.parse(Array(xml.utf8)) }
    }

    /// Refused at the depth limit, before the rest is read: an entry needs three levels.
    @Test func refusesDeepNesting() {
        let deep = #"<entry xmlns="http://www.w3.org/2005/Atom">"# + String(repeating: "<x>", count: 10_000) + String(repeating: "</x>", count: 10_000) + "</entry>"
        #expect(throws: AtomEntryParser.Failure.self) { try AtomEntryParser.parse(Array(deep.utf8)) }
        let fine = #"<entry xmlns="http://www.w3.org/2005/Atom"><title>t</title>"# + String(repeating: "<x>", count: 20) + String(repeating: "</x>", count: 20) + "</entry>"
        #expect(throws: Never.self) { try AtomEntryParser.parse(Array(fine.utf8)) }
    }

    @Test func findsDeclarationsOutsideCommentsAndCDATAOnly() {
        #expect(MarkupDeclarations.present(in: Array("<a><!ENTITY x 'y'></a>".utf8)))
        #expect(MarkupDeclarations.present(in: Array("<!-- <!DOCTYPE --><!DOCTYPE a><a/>".utf8)))
        #expect(!MarkupDeclarations.present(in: Array("<!-- <!DOCTYPE x> --><a><![CDATA[<!ENTITY]]></a>".utf8)))
        #expect(!MarkupDeclarations.present(in: Array("<a>&lt;!DOCTYPE</a>".utf8)))
    }
}
