import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import StoreTestSupport
import Testing

/// The Micropub endpoint through the real router and store, one test per server check of
/// micropub.rocks (aaronpk/micropub.rocks, views/server-tests/*.php), numbered as there, with
/// what its page asks a person to look at checked here on the entry and its page.
@Suite struct MicropubTests {
    /// Where the test application says its site is (`SiteAddress` before the server listens).
    static let site = "http://127.0.0.1"

    final class Client: Sendable {
        let t: TestApplication
        let token: String

        init(_ t: TestApplication = try! TestApplication(), user: String = "alice") throws {
            self.t = t
            token = try t.addUser(user)
        }

        func form(_ fields: [(String, String)], token: String?? = .none) -> Response {
            let body = fields.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
            return t.request("POST", "/micropub", token: token ?? self.token, contentType: "application/x-www-form-urlencoded", body: Array(body.utf8))
        }

        func json(_ json: String, token: String? = nil) -> Response {
            t.request("POST", "/micropub", token: token ?? self.token, json: json)
        }

        func query(_ query: String, token: String? = nil) -> Response {
            t.request("GET", "/micropub?\(query)", token: token ?? self.token)
        }

        /// The entry a 201's `Location` names, read through the API as its owner.
        func created(_ response: Response) throws -> Entry {
            #expect(response.status == 201, "\(response.text)")
            let location = try #require(response.headers["Location"])
            #expect(location.hasPrefix(MicropubTests.site + "/entries/"))
            let id = try #require(Int64(location.dropFirst((MicropubTests.site + "/entries/").count)))
            return try t.request("GET", "/api/entries/\(id)", token: token).decoded(Entry.self)
        }

        /// The entry's page as anyone reads it.
        func page(_ entry: Entry) -> String {
            t.request("GET", "/entries/\(entry.id)").text
        }

        func source(_ entry: Entry, _ extra: String = "") throws -> [String: Any] {
            let answer = query("q=source&url=\(Self.escape(MicropubTests.site + "/entries/\(entry.id)"))\(extra)")
            #expect(answer.status == 200, "\(answer.text)")
            return try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        }

        static func escape(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
        }
    }

    /// The error body Micropub specifies, and the status.
    static func expectError(_ response: Response, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status.code == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        let body = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(body?["error"] as? String == code, "\(response.text)", sourceLocation: sourceLocation)
        #expect((body?["error_description"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    }

    // MARK: Creating posts (form-encoded): 100, 101, 104, 107

    @Test func check100CreatesAnEntryFromAForm() throws {
        let c = try Client()
        let entry = try c.created(c.form([("h", "entry"), ("content", "Micropub test of creating a basic h-entry")]))
        #expect(entry.body == "Micropub test of creating a basic h-entry" && entry.title == "Micropub test of creating a basic h-entry")
        #expect(entry.visibility == .public && !entry.draft)
        #expect(c.page(entry).contains("Micropub test of creating a basic h-entry"))
    }

    @Test func check101KeepsEveryCategoryOfAForm() throws {
        let c = try Client()
        let entry = try c.created(c.form([("h", "entry"), ("content", "two categories"), ("category[]", "test1"), ("category[]", "test2")]))
        #expect(entry.tags == ["test1", "test2"])
    }

    @Test func check104LinksAPhotoByURL() throws {
        let c = try Client()
        let url = "https://micropub.rocks/media/sunset.jpg"
        let entry = try c.created(c.form([("h", "entry"), ("content", "a photo by URL"), ("photo", url)]))
        #expect(entry.body == "a photo by URL\n\n![](\(url))")
        #expect(c.page(entry).contains("<img src=\"\(url)\""))
    }

    @Test func check107TakesOneCategoryWithoutBrackets() throws {
        let c = try Client()
        #expect(try c.created(c.form([("h", "entry"), ("content", "one category"), ("category", "Travel Notes")])).tags == ["travel-notes"])
    }

    // MARK: Creating posts (JSON): 200–206

    @Test func check200CreatesAnEntryFromJSON() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["Micropub test of creating an h-entry with JSON"]}}"#))
        #expect(entry.body == "Micropub test of creating an h-entry with JSON")
    }

    @Test func check201KeepsEveryCategoryOfJSON() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["c"],"category":["test1","test2"]}}"#))
        #expect(entry.tags == ["test1", "test2"])
    }

    @Test func check202KeepsHTMLContentSanitisedAsMarkdown() throws {
        let c = try Client()
        let html = #"<p>This post has <b>bold</b> and <i>italic</i> text, a <a href=\"https://example.com/\">link</a><script>alert(1)</script> and 2 * 3.</p><ul><li>one</li><li>two</li></ul>"#
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"name":["HTML"],"content":[{"html":"\#(html)"}]}}"#))
        #expect(!entry.body.contains("<") && !entry.body.contains("alert"), "\(entry.body)")
        let page = c.page(entry)
        #expect(page.contains("<strong>bold</strong>") && page.contains("<em>italic</em>"), "\(page)")
        #expect(page.contains(#"<a href="https://example.com/""#) && page.contains("<li>two</li>") && page.contains("2 * 3."))
        #expect(!page.contains("<script") && !page.contains("alert"))
    }

    @Test func check203LinksAPhotoByURLFromJSON() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["p"],"photo":["https://micropub.rocks/media/sunset.jpg"]}}"#))
        #expect(entry.body.hasSuffix("![](https://micropub.rocks/media/sunset.jpg)"))
    }

    @Test func check204AcceptsANestedObjectAndKeepsTheRest() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"""
            {"type":["h-entry"],"properties":{"published":["2017-05-31T12:03:36-07:00"],"content":["Lunch meeting"],
             "checkin":[{"type":["h-card"],"properties":{"name":["Los Gorditos"],"latitude":[45.524330801154],"longitude":[-122.68068808051]}}]}}
            """#))
        #expect(entry.body == "Lunch meeting" && RFC3339.string(from: entry.created) == "2017-05-31T19:03:36Z")
    }

    @Test func check205KeepsAPhotosAltText() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["sunset"],"photo":[{"value":"https://micropub.rocks/media/sunset.jpg","alt":"Photo of a sunset"}]}}"#))
        #expect(c.page(entry).contains(#"<img src="https://micropub.rocks/media/sunset.jpg" alt="Photo of a sunset""#), "\(c.page(entry))")
    }

    @Test func check206KeepsSeveralPhotosInOrder() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["two"],"photo":["https://a.example/1.jpg","https://a.example/2.jpg"]}}"#))
        #expect(entry.body == "two\n\n![](https://a.example/1.jpg)\n\n![](https://a.example/2.jpg)")
    }

    // MARK: Creating posts (multipart): 300, 301

    static func multipart(_ fields: [(String, String)], photos: [[UInt8]]) -> [UInt8] {
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--XyZ\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for photo in photos {
            body += Array("--XyZ\r\nContent-Disposition: form-data; name=\"photo[]\"; filename=\"p.png\"\r\nContent-Type: image/png\r\n\r\n".utf8) + photo + Array("\r\n".utf8)
        }
        return body + Array("--XyZ--\r\n".utf8)
    }

    @Test(arguments: [1, 2]) func check300And301KeepUploadedPhotosAsTheMediaEndpointDoes(count: Int) throws {
        let c = try Client()
        let body = Self.multipart([("h", "entry"), ("content", "photos")], photos: Array(repeating: TestImages.png, count: count))
        let entry = try c.created(c.t.request("POST", "/micropub", token: c.token, contentType: "multipart/form-data; boundary=XyZ", body: body))
        let media = try c.t.request("GET", "/api/media", token: c.token).decoded(MediaPage.self)
        #expect(media.media.count == count)
        for item in media.media {
            #expect(entry.body.contains("![](\(item.url))"))
            #expect(c.page(entry).contains("<img src=\"\(item.url)\""))
        }
        // Not an image: refused as the media endpoint refuses it, and no entry is written.
        let bad = Self.multipart([("h", "entry"), ("content", "not a photo")], photos: [Array("plain text, not an image".utf8)])
        let refused = c.t.request("POST", "/micropub", token: c.token, contentType: "multipart/form-data; boundary=XyZ", body: bad)
        Self.expectError(refused, 415, "invalid_request")
        #expect(try c.t.request("GET", "/api/entries", token: c.token).decoded(EntryPage.self).total == 1)
    }

    // MARK: Updates: 400–405

    func post(_ c: Client, categories: [String] = []) throws -> (Entry, String) {
        let tags = categories.map { "\"\($0)\"" }.joined(separator: ",")
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["Micropub update test."],"category":[\#(tags)]}}"#))
        return (entry, Self.site + "/entries/\(entry.id)")
    }

    func update(_ c: Client, _ url: String, _ operations: String) throws -> Entry {
        let answer = c.json(#"{"action":"update","url":"\#(url)",\#(operations)}"#)
        #expect(answer.status == 204, "\(answer.text)")
        return try c.t.request("GET", "/api/entries/\(url.split(separator: "/").last!)", token: c.token).decoded(Entry.self)
    }

    @Test func check400ReplacesAProperty() throws {
        let c = try Client()
        let (_, url) = try post(c)
        #expect(try update(c, url, #""replace":{"content":["This is the updated text."]}"#).body == "This is the updated text.")
    }

    @Test func check401AddsAValueToAnExistingProperty() throws {
        let c = try Client()
        let (_, url) = try post(c, categories: ["test1"])
        #expect(try update(c, url, #""add":{"category":["test2"]}"#).tags == ["test1", "test2"])
    }

    @Test func check402AddsAValueToAPropertyNotThere() throws {
        let c = try Client()
        let (_, url) = try post(c)
        #expect(try update(c, url, #""add":{"category":["test1"]}"#).tags == ["test1"])
    }

    @Test func check403RemovesAValueFromAProperty() throws {
        let c = try Client()
        let (_, url) = try post(c, categories: ["test1", "remove-me"])
        #expect(try update(c, url, #""delete":{"category":["remove-me"]}"#).tags == ["test1"])
    }

    @Test func check404RemovesAProperty() throws {
        let c = try Client()
        let (_, url) = try post(c, categories: ["test1", "test2"])
        #expect(try update(c, url, #""delete":["category"]"#).tags == [])
    }

    @Test func check405RefusesAnOperationThatIsNotAnObjectOfArrays() throws {
        let c = try Client()
        let (entry, url) = try post(c)
        for operations in [#""replace":"This is not a valid update request.""#, #""replace":{"content":"no array"}"#, #""delete":"category""#] {
            Self.expectError(c.json(#"{"action":"update","url":"\#(url)",\#(operations)}"#), 400, "invalid_request")
        }
        #expect(try c.t.request("GET", "/api/entries/\(entry.id)", token: c.token).decoded(Entry.self) == entry)
    }

    // MARK: Deletes: 500–503

    @Test func check500And501DeleteByFormAndByJSON() throws {
        let c = try Client()
        let (first, firstURL) = try post(c), (second, secondURL) = try post(c)
        #expect(c.form([("action", "delete"), ("url", firstURL)]).status == 204)
        #expect(c.json(#"{"action":"delete","url":"\#(secondURL)"}"#).status == 204)
        for entry in [first, second] { #expect(c.t.request("GET", "/api/entries/\(entry.id)", token: c.token).status == 404) }
    }

    @Test func check502And503UndeleteIsAClearRefusal() throws {
        let c = try Client()
        let (_, url) = try post(c)
        #expect(c.form([("action", "delete"), ("url", url)]).status == 204)
        for answer in [c.form([("action", "undelete"), ("url", url)]), c.json(#"{"action":"undelete","url":"\#(url)"}"#)] {
            Self.expectError(answer, 400, "invalid_request")
            #expect(answer.text.contains("not kept"))
        }
    }

    // MARK: Queries: 600–603

    @Test func check600ConfigNamesTheMediaEndpointAndNoSyndication() throws {
        let c = try Client()
        let answer = c.query("q=config")
        #expect(answer.status == 200 && answer.headers["Cache-Control"] == "no-store")
        let config = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        #expect(config["media-endpoint"] as? String == Self.site + "/api/media")
        #expect((config["syndicate-to"] as? [Any])?.isEmpty == true)
    }

    @Test func check601SyndicationTargetsAreNone() throws {
        let c = try Client()
        #expect(c.query("q=syndicate-to").text == #"{"syndicate-to":[]}"#)
    }

    @Test func check602SourceHasEveryProperty() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"name":["Title"],"content":["Body"],"category":["a","b"],"published":["2026-01-02T03:04:05Z"]}}"#))
        let source = try c.source(entry)
        #expect(source["type"] as? [String] == ["h-entry"])
        let properties = try #require(source["properties"] as? [String: [Any]])
        #expect(properties["name"] as? [String] == ["Title"] && properties["content"] as? [String] == ["Body"])
        #expect(properties["category"] as? [String] == ["a", "b"] && properties["published"] as? [String] == ["2026-01-02T03:04:05Z"])
        #expect(properties["post-status"] as? [String] == ["published"] && properties["visibility"] as? [String] == ["public"])
    }

    @Test func check603SourceHasTheNamedPropertiesOnly() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["Body"],"category":["a"]}}"#))
        let source = try c.source(entry, "&properties[]=content&properties[]=category")
        #expect(source["type"] == nil)
        let properties = try #require(source["properties"] as? [String: [String]])
        #expect(properties == ["content": ["Body"], "category": ["a"]])
    }

    // MARK: Media endpoint: 700–702

    @Test(arguments: [("jpg", "image/jpeg"), ("png", "image/png"), ("gif", "image/gif")])
    func check700To702TheMediaEndpointTakesAFileField(kind: String, contentType: String) throws {
        let c = try Client()
        let config = try JSONSerialization.jsonObject(with: Data(c.query("q=config").body)) as? [String: Any]
        let endpoint = try #require((config?["media-endpoint"] as? String)?.dropFirst(Self.site.count))
        let bytes = ["jpg": TestImages.jpeg, "png": TestImages.png][kind] ?? Self.gif
        let body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.\(kind)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8)
            + bytes + Array("\r\n--XyZ--\r\n".utf8)
        let uploaded = c.t.request("POST", String(endpoint), token: c.token, contentType: "multipart/form-data; boundary=XyZ", body: body)
        #expect(uploaded.status == 201, "\(uploaded.text)")
        let location = try #require(uploaded.headers["Location"])
        #expect(c.t.request("GET", location, token: c.token).status == 200)
    }

    /// A 1 × 1 GIF.
    static let gif = [UInt8](Data(base64Encoded: "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==")!)

    // MARK: Authentication: 800–805

    @Test func check800And801TakeTheTokenInTheHeaderOrTheForm() throws {
        let c = try Client()
        _ = try c.created(c.form([("h", "entry"), ("content", "header")]))
        _ = try c.created(c.form([("h", "entry"), ("content", "body"), ("access_token", c.token)], token: .some(nil)))
    }

    @Test func check802TheTokenIsNotKept() throws {
        let c = try Client()
        let entry = try c.created(c.form([("h", "entry"), ("content", "Testing accepting access token in post body"), ("access_token", c.token)], token: .some(nil)))
        #expect(!c.query("q=source&url=\(Client.escape(Self.site + "/entries/\(entry.id)"))").text.contains(c.token))
        #expect(!entry.body.contains(c.token) && !entry.title.contains(c.token))
    }

    @Test func check803To805RefuseWithoutAGoodToken() throws {
        let c = try Client()
        Self.expectError(c.form([("h", "entry"), ("content", "no token")], token: .some(nil)), 401, "unauthorized")
        Self.expectError(c.form([("h", "entry"), ("content", "bad token")], token: "diary_not-a-token"), 401, "unauthorized")
        Self.expectError(c.query("q=config", token: "diary_not-a-token"), 401, "unauthorized")
        let reader = try c.t.request("POST", "/api/tokens", token: c.token, json: #"{"name":"reader","scope":"read"}"#).decoded(CreatedToken.self)
        Self.expectError(c.form([("h", "entry"), ("content", "read token")], token: reader.token), 403, "insufficient_scope")
        Self.expectError(c.form([("h", "entry"), ("content", "both"), ("access_token", c.token)]), 400, "invalid_request")
        // Nothing was written, and a read token still reads.
        #expect(try c.t.request("GET", "/api/entries", token: c.token).decoded(EntryPage.self).total == 0)
        #expect(c.query("q=config", token: reader.token).status == 200)
    }
}
