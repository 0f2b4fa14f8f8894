import DiaryAPI
import DiaryPages
import DiaryServer
import Foundation
import HTTPCore
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The reading pages and feeds through the application, in-process on a real database.
@Suite struct PagesTests {
    /// Posts an entry through the API and answers it.
    @discardableResult
    static func post(
        _ t: TestApplication, _ token: String, title: String, body: String = "", tags: [String] = [], visibility: String = "public",
        created: String? = nil
    ) throws -> Entry {
        var object: [String: Any] = ["title": title, "body": body, "tags": tags, "visibility": visibility]
        if let created { object["created"] = created }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let response = t.request("POST", "/api/entries", token: token, json: json)
        try #require(response.status == 201, "POST answered \(response.status): \(response.text)")
        return try response.decoded(Entry.self)
    }

    @Test func pagesAreHTMLWithAStrictPolicy() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let entry = try Self.post(t, alice, title: "Kyoto", body: "Leaves **red**.", tags: ["travel"])
        for target in ["/", "/diaries/\(entry.diaryID)", "/entries/\(entry.id)", "/tags/travel", "/search", "/search?q=Kyoto"] {
            let response = t.request("GET", target)
            #expect(response.status == 200, "\(target)")
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8", "\(target)")
            let policy = try #require(response.headers["Content-Security-Policy"], "\(target)")
            #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'") && !policy.contains("script-src"), "\(target)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(target)")
            #expect(response.headers["Referrer-Policy"] == "strict-origin-when-cross-origin", "\(target)")
            #expect(response.headers["ETag"] != nil, "\(target)")
            #expect(response.headers["Cache-Control"] == "no-cache", "\(target)")
            #expect(response.text.hasPrefix("<!doctype html>\n<html lang=\"en\">"), "\(target)")
            #expect(response.text.contains("<link rel=\"alternate\" type=\"application/atom+xml\""), "\(target)")
            #expect(!response.text.lowercased().contains("<script"), "\(target)")
        }
        let page = t.request("GET", "/entries/\(entry.id)").text
        #expect(page.contains("<div class=\"entry-body\" id=\"entry-body\">\n<p>Leaves <strong>red</strong>.</p>"))
        #expect(page.contains("<time datetime=\"\(RFC3339.string(from: entry.created))\">"))
        #expect(page.contains("<a class=\"tag\" rel=\"tag\" href=\"/tags/travel\">travel</a>"))
    }

    @Test func aKeptPageAnswers304AndHEAD() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        try Self.post(t, alice, title: "one")
        for target in ["/", "/feed.atom"] {
            let first = t.request("GET", target)
            let tag = try #require(first.headers["ETag"])
            let modified = try #require(first.headers["Last-Modified"])
            let again = t.request("GET", target, headers: [("If-None-Match", tag)])
            #expect(again.status == 304, "\(target)")
            #expect(again.body.isEmpty)
            #expect(t.request("GET", target, headers: [("If-Modified-Since", modified)]).status == 304, "\(target)")
            let head = t.request("HEAD", target)
            #expect(head.status == 200 && head.headers["ETag"] == tag, "\(target)")
        }
        #expect(t.app.responseCache!.counts.hits >= 4)
    }

    /// Once a write has answered, no page or feed from before it is served.
    @Test func aWriteIsSeenByTheNextPageAndFeed() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let first = try Self.post(t, alice, title: "before")
        let targets = ["/", "/feed.atom", "/diaries/\(first.diaryID)", "/diaries/\(first.diaryID)/feed.atom", "/entries/\(first.id)", "/tags/t"]
        for target in targets {
            _ = t.request("GET", target)
            _ = t.request("GET", target)  // from the cache
        }
        let hits = t.app.responseCache!.counts.hits
        #expect(hits >= targets.count)
        try Self.post(t, alice, title: "after", tags: ["t"])
        for target in targets where target != "/entries/\(first.id)" {
            #expect(t.request("GET", target).text.contains("after"), "\(target)")
        }
        // The older entry's page now links its newer neighbour.
        #expect(t.request("GET", "/entries/\(first.id)").text.contains("id=\"next-entry\""))
        // A change of title shows at once too.
        #expect(t.request("PATCH", "/api/entries/\(first.id)", token: alice, json: #"{"title":"renamed"}"#).status == 200)
        #expect(t.request("GET", "/").text.contains("renamed"))
        #expect(t.request("GET", "/feed.atom").text.contains("renamed"))
    }

    @Test func privateAndUnlistedEntriesAreInNoListOrFeed() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let shown = try Self.post(t, alice, title: "shown kyoto", tags: ["trip"])
        let unlisted = try Self.post(t, alice, title: "unlisted kyoto", body: "by link", tags: ["trip"], visibility: "unlisted")
        let secret = try Self.post(t, alice, title: "secret kyoto", body: "diary of secrets", tags: ["trip"], visibility: "private")
        let lists = ["/", "/diaries/\(shown.diaryID)", "/tags/trip", "/search?q=kyoto", "/feed.atom", "/diaries/\(shown.diaryID)/feed.atom"]
        for target in lists {
            // A token changes nothing: pages are what anyone sees.
            for token in [nil, alice] as [String?] {
                let text = t.request("GET", target, token: token).text
                #expect(text.contains("shown kyoto"), "\(target)")
                #expect(!text.contains("unlisted kyoto") && !text.contains("secret kyoto"), "\(target)")
                #expect(!text.contains("/entries/\(unlisted.id)\"") && !text.contains("/entries/\(secret.id)\""), "\(target)")
            }
        }
        // Readable by its address, marked, and kept out of search engines.
        let page = t.request("GET", "/entries/\(unlisted.id)")
        #expect(page.status == 200)
        #expect(page.text.contains("unlisted kyoto") && page.text.contains("id=\"unlisted-notice\"") && page.text.contains("noindex"))
        // A private entry is a page that does not exist, even to its owner's token.
        for token in [nil, alice] as [String?] {
            let missing = t.request("GET", "/entries/\(secret.id)", token: token)
            #expect(missing.status == 404)
            #expect(missing.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(!missing.text.contains("secret"))
            #expect(missing.text == t.request("GET", "/entries/999").text.replacingOccurrences(of: "999", with: "\(secret.id)"))
        }
        // The public entry's neighbours skip them both.
        #expect(!t.request("GET", "/entries/\(shown.id)").text.contains("id=\"next-entry\""))
    }

    @Test func errorsArePagesOutsideTheAPI() throws {
        let t = try TestApplication()
        let cases: [(String, String, Int)] = [
            ("GET", "/nowhere", 404), ("GET", "/entries/abc", 404), ("GET", "/entries/42", 404), ("GET", "/diaries/7", 404),
            ("GET", "/diaries/7/feed.atom", 404), ("GET", "/?cursor=forged", 400), ("GET", "/search?q=%22open", 400),
            ("GET", "/tags/%20", 400), ("GET", "/entries/%FF", 400), ("POST", "/", 405),
        ]
        for (method, target, status) in cases {
            let response = t.request(method, target)
            #expect(response.status.code == status, "\(method) \(target)")
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8", "\(method) \(target)")
            #expect(response.headers["Content-Security-Policy"] != nil, "\(method) \(target)")
            #expect(response.text.contains("<main id=\"main\""), "\(method) \(target)")
        }
        #expect(t.request("POST", "/").headers["Allow"] == "GET, HEAD, OPTIONS")
        // The search form says what is wrong with the query, and keeps it.
        let search = t.request("GET", "/search?q=%22open").text
        #expect(search.contains("id=\"search-error\"") && search.contains("value=\"&quot;open\""))
        // The API keeps problem+json.
        #expect(t.request("GET", "/api/nowhere").problem?.status == 404)
        #expect(t.request("GET", "/api/entries/abc").problem?.status == 400)
    }

    @Test func aStoreThatCannotAnswerIsA503Page() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let entry = try Self.post(t, alice, title: "one")
        try t.closeStore()
        for target in ["/", "/entries/\(entry.id)", "/diaries/\(entry.diaryID)", "/feed.atom", "/search?q=one"] {
            let response = t.request("GET", target)
            #expect(response.status == 503, "\(target)")
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8", "\(target)")
            #expect(response.headers["Retry-After"] == "1", "\(target)")
            #expect(response.headers["Cache-Control"] == "no-store", "\(target)")
            #expect(response.text.contains("Error 503"), "\(target)")
        }
    }

    /// 45 entries: three pages of 20, 20 and 5, "Older entries" and "Newer entries" by cursor
    /// both ways, with entries created in the same second among them.
    @Test func olderAndNewerEntriesPageByCursor() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        var ids: [Int64] = []
        for index in 0..<45 {
            // Pairs share a second, so the newer link must count ties.
            let created = RFC3339.string(from: Date(timeIntervalSince1970: 1_780_000_000 + Double(index / 2) * 60))
            ids.append(try Self.post(t, alice, title: "entry \(index)", created: created).id)
        }
        let newestFirst = Array(ids.reversed())
        func page(_ target: String) throws -> (ids: [Int64], older: String?, newer: String?) {
            let response = t.request("GET", target)
            try #require(response.status == 200, "\(target): \(response.status)")
            let text = response.text
            let shown = text.matches(of: /<h2 class="entry-title"><a href="\/entries\/(\d+)">/).map { Int64($0.1)! }
            let older = text.firstMatch(of: /id="older-entries" rel="next" href="([^"]+)"/).map { String($0.1).replacingOccurrences(of: "&amp;", with: "&") }
            let newer = text.firstMatch(of: /id="newer-entries" rel="prev" href="([^"]+)"/).map { String($0.1).replacingOccurrences(of: "&amp;", with: "&") }
            return (shown, older, newer)
        }
        let first = try page("/")
        #expect(first.ids == Array(newestFirst[0..<20]))
        #expect(first.newer == nil)
        let second = try page(try #require(first.older))
        #expect(second.ids == Array(newestFirst[20..<40]))
        #expect(second.newer == "/")
        let third = try page(try #require(second.older))
        #expect(third.ids == Array(newestFirst[40..<45]))
        #expect(third.older == nil)
        let back = try page(try #require(third.newer))
        #expect(back.ids == second.ids)
        #expect(back.older == second.older)

        // The same in a diary and under a tag.
        let diary = try page("/diaries/\(try t.request("GET", "/api/entries/\(ids[0])").decoded(Entry.self).diaryID)")
        #expect(diary.ids == first.ids)
        let diarySecond = try page(try #require(diary.older))
        #expect(diarySecond.ids == second.ids)
        let diaryThird = try page(try #require(diarySecond.older))
        #expect(try page(try #require(diaryThird.newer)).ids == second.ids)

        // An entry's neighbours are its diary's previous and next entries, ties included.
        let middle = t.request("GET", "/entries/\(ids[10])").text
        #expect(middle.contains("id=\"previous-entry\" rel=\"prev\" href=\"/entries/\(ids[9])\""))
        #expect(middle.contains("id=\"next-entry\" rel=\"next\" href=\"/entries/\(ids[11])\""))
        let tie = t.request("GET", "/entries/\(ids[11])").text  // created in the same second as ids[10]
        #expect(tie.contains("href=\"/entries/\(ids[10])\"") && tie.contains("href=\"/entries/\(ids[12])\""))
    }

    @Test func searchShowsSnippetsWithMarksAndEscapesTheRest() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        try Self.post(t, alice, title: "紅葉 <b>trip</b>", body: "京都の紅葉 <script>alert(1)</script> は見事")
        let page = t.request("GET", "/search?q=%E7%B4%85%E8%91%89").text
        #expect(page.contains("<p class=\"entry-snippet\">"))
        #expect(page.contains("<mark>紅葉</mark>"))
        #expect(page.contains("&lt;script&gt;") && !page.contains("<script"))
        #expect(page.contains("紅葉 &lt;b&gt;trip&lt;/b&gt;"))
        #expect(page.contains("id=\"search-form\"") && page.contains("value=\"紅葉\""))
    }

    /// Every title, tag and name is escaped, wherever it shows.
    @Test func hostileTitlesAndTagsAreText() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let title = "</title><script>alert(1)</script>\"><img src=x onerror=alert(1)>"
        let entry = try Self.post(t, alice, title: title, body: "[x](javascript:alert(1)) <iframe src=//evil>", tags: ["\"><script>"])
        #expect(t.request("PATCH", "/api/diaries/\(entry.diaryID)", token: alice, json: #"{"title":"<svg onload=alert(1)>"}"#).status == 200)
        for target in ["/", "/entries/\(entry.id)", "/diaries/\(entry.diaryID)", "/search?q=title", "/tags/%22%3E%3Cscript%3E"] {
            let text = t.request("GET", target).text
            #expect(!text.lowercased().contains("<script") && !text.contains("<img src=x") && !text.contains("<svg") && !text.contains("<iframe"), "\(target)")
            #expect(!text.contains("javascript:"), "\(target)")
        }
        let page = t.request("GET", "/entries/\(entry.id)").text
        #expect(page.contains("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt; · Diary</title>"))
        #expect(page.contains("href=\"/tags/%22%3E%3Cscript%3E\">&quot;&gt;&lt;script&gt;</a>"))
        let feed = t.request("GET", "/feed.atom")
        #expect(try FeedReader.read(feed.body).entries.first?.title == title)
    }

    @Test func feedsAreAtomWithAbsoluteURLsFromThePublicAddress() throws {
        let t = try TestApplication(configuration: .init(publicURL: "https://diary.example"))
        let alice = try t.addUser("alice")
        let entry = try Self.post(t, alice, title: "Kyoto & leaves", body: "**red** <b>raw</b>\n\n[next](/entries/2)", tags: ["travel"])
        try Self.post(t, alice, title: "unlisted", visibility: "unlisted")
        let response = t.request("GET", "/feed.atom", headers: [("Host", "evil.example")])
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/atom+xml; charset=utf-8")
        #expect(!response.text.contains("evil.example"))
        let feed = try FeedReader.read(response.body)
        #expect(feed.id == "https://diary.example/feed.atom")
        #expect(feed.selfLink == "https://diary.example/feed.atom")
        #expect(feed.updated == RFC3339.string(from: entry.updated))
        try #require(feed.entries.count == 1)
        let item = feed.entries[0]
        #expect(item.id == "https://diary.example/entries/\(entry.id)")
        #expect(item.link == item.id)
        #expect(item.title == "Kyoto & leaves")
        #expect(item.author == "alice")
        #expect(item.published == RFC3339.string(from: entry.created))
        #expect(item.contentType == "html")
        #expect(item.content == "<p><strong>red</strong> &lt;b&gt;raw&lt;/b&gt;</p><p><a href=\"/entries/2\">next</a></p>")
        let diaryFeed = try FeedReader.read(t.request("GET", "/diaries/\(entry.diaryID)/feed.atom").body)
        #expect(diaryFeed.id == "https://diary.example/diaries/\(entry.diaryID)/feed.atom")
        #expect(diaryFeed.entries.map(\.id) == [item.id])

        // Without a public URL, the address the server listens on.
        let local = try TestApplication()
        local.app.listening(host: "127.0.0.1", port: 8123)
        #expect(try FeedReader.read(local.request("GET", "/feed.atom").body).id == "http://127.0.0.1:8123/feed.atom")
    }

    @Test func theStylesheetIsServedAndKeptForAYearAtItsVersion() throws {
        let t = try TestApplication()
        let versioned = t.request("GET", Stylesheet.versionedPath)
        #expect(versioned.status == 200)
        #expect(versioned.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(versioned.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        #expect(versioned.body == Stylesheet.bytes)
        #expect(t.request("GET", "/style.css").headers["Cache-Control"] == "no-cache")
        let tag = try #require(versioned.headers["ETag"])
        #expect(t.request("GET", "/style.css", headers: [("If-None-Match", tag)]).status == 304)
        #expect(t.request("GET", "/").text.contains("<link rel=\"stylesheet\" href=\"\(Stylesheet.versionedPath)\">"))
    }
}

/// Reads an Atom feed with Foundation's XMLParser, as a feed reader would: a document that is
/// not well-formed XML throws.
final class FeedReader: NSObject, XMLParserDelegate {
    struct Item {
        var id = "", title = "", published = "", updated = "", author = "", link = "", content = "", contentType = ""
    }

    var id = "", updated = "", selfLink = ""
    var entries: [Item] = []
    private var path: [String] = []
    private var text = ""

    static func read(_ bytes: [UInt8]) throws -> FeedReader {
        let reader = FeedReader()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = reader
        parser.shouldProcessNamespaces = true
        guard parser.parse() else {
            throw parser.parserError ?? CocoaError(.coderReadCorrupt)
        }
        return reader
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]) {
        path.append(name)
        text = ""
        if name == "entry" { entries.append(Item()) }
        if name == "link" {
            if path.count == 2, attributes["rel"] == "self" { selfLink = attributes["href"] ?? "" }
            if path.count == 3, attributes["rel"] == "alternate" { entries[entries.count - 1].link = attributes["href"] ?? "" }
        }
        if name == "content" { entries[entries.count - 1].contentType = attributes["type"] ?? "" }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        defer { path.removeLast() }
        if path.count == 2 {
            if name == "id" { id = text }
            if name == "updated" { updated = text }
            return
        }
        guard !entries.isEmpty, path.count >= 3 else { return }
        let last = entries.count - 1
        switch name {
        case "id": entries[last].id = text
        case "title": entries[last].title = text
        case "published": entries[last].published = text
        case "updated": entries[last].updated = text
        case "name": entries[last].author = text
        case "content": entries[last].content = text
        default: break
        }
    }
}
