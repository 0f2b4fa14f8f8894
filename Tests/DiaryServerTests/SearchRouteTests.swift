import ByteEncodings
import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import Testing

/// The list parameters, tags, export and import through the router, in-process.
@Suite struct SearchRouteTests {
    private func post(_ t: TestApplication, _ token: String, _ json: String) throws -> Entry {
        let response = t.request("POST", "/api/entries", token: token, json: json)
        #expect(response.status == 201, "\(response.text)")
        return try response.decoded(Entry.self)
    }

    @Test func searchesWithSnippetsAndFilters() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        _ = try post(t, token, #"{"title":"Kyoto","body":"京都で紅葉を見た","tags":[" Autumn  Leaves ","japan","JAPAN"]}"#)
        _ = try post(t, token, #"{"title":"Rain","body":"A rainy day","created":"2026-11-01T09:00:00Z"}"#)
        let found = t.request("GET", "/api/entries?q=%E4%BA%AC%E9%83%BD")   // 京都
        #expect(found.status == 200, "\(found.text)")
        let page = try found.decoded(EntryPage.self)
        #expect(page.entries.map(\.title) == ["Kyoto"])
        #expect(page.entries[0].tags == ["autumn-leaves", "japan"])
        #expect(page.entries[0].snippet == "<mark>京都</mark>で紅葉を見た")
        #expect(found.text.contains(#""next_cursor":null"#))
        // Outside search results there is no snippet key at all.
        #expect(!t.request("GET", "/api/entries").text.contains("snippet"))

        let dated = try t.request("GET", "/api/entries?since=2026-11-01&until=2026-11-01").decoded(EntryPage.self)
        #expect(dated.entries.map(\.title) == ["Rain"])
        let tagged = try t.request("GET", "/api/entries?tag=Japan&tag=autumn%20leaves").decoded(EntryPage.self)
        #expect(tagged.entries.map(\.title) == ["Kyoto"])
        let diaryTagged = try t.request("GET", "/api/diaries/1/entries?tag=japan&q=kyo*&order=newest").decoded(EntryPage.self)
        #expect(diaryTagged.entries.map(\.title) == ["Kyoto"])

        let tags = try t.request("GET", "/api/tags").decoded(TagList.self)
        #expect(tags == TagList(tags: [TagCount(name: "autumn-leaves", count: 1), TagCount(name: "japan", count: 1)]))
    }

    @Test(arguments: [
        ("q=%22open", "q"), ("q=", "q"), ("q=%20%20", "q"), ("order=foo", "order"), ("order=relevance", "order"),
        ("since=yesterday", "since"), ("until=2026-13-01", "until"), ("since=2026-11-02&until=2026-11-01", "since"),
        ("cursor=abc", "cursor"), ("cursor=", "cursor"), ("tag=a%2Cb", "tag"),
        ("q=" + String(repeating: "e", count: 201), "q"), ("q=a+b+c+d+e+f+g+h+i", "q"),
        ((1...21).map { "tag=t\($0)" }.joined(separator: "&"), "tag"),
        // Counted as sent, as the contract's maxItems counts: 21 copies of one tag too.
        (Array(repeating: "tag=t", count: 21).joined(separator: "&"), "tag"),
    ])
    func refusesBadParametersWith400(query: String, parameter: String) throws {
        let t = try TestApplication()
        for path in ["/api/entries", "/api/diaries/1/entries"] {
            let response = t.request("GET", "\(path)?\(query)")
            #expect(response.status == 400, "\(query): \(response.text)")
            #expect(response.problem?.errors?.first?.field == parameter, "\(query): \(response.text)")
        }
    }

    @Test func refusesBadTagsWith422() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let tooMany = (1...21).map { "\"t\($0)\"" }.joined(separator: ",")
        // The schema's maxItems bounds the array as sent: 21 copies of one tag are 21 tags.
        let tooManyCopies = Array(repeating: "\"t\"", count: 21).joined(separator: ",")
        let refused = [#"["a,b"]"#, ##"["#x"]"##, #"[""]"#, "[\"\(String(repeating: "x", count: 41))\"]", "[\(tooMany)]", "[\(tooManyCopies)]"]
        for tags in refused {
            let response = t.request("POST", "/api/entries", token: token, json: #"{"title":"t","body":"","tags":\#(tags)}"#)
            #expect(response.status == 422, "\(tags): \(response.text)")
            #expect(response.problem?.errors?.first?.field == "tags", "\(tags)")
        }
    }

    @Test func followsCursorsAndRefusesTamperedOnes() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        for number in 1...5 { _ = try post(t, token, #"{"title":"e\#(number)","body":"","tags":["x"]}"#) }
        var titles: [String] = []
        var target = "/api/entries?tag=x&per_page=2"
        var pages = 0
        while true {
            let response = t.request("GET", target)
            #expect(response.status == 200, "\(response.text)")
            let page = try response.decoded(EntryPage.self)
            #expect(page.total == 5)
            #expect(response.headers["Link"]?.contains("cursor") == false)
            titles += page.entries.map(\.title)
            pages += 1
            guard let cursor = page.nextCursor else { break }
            target = "/api/entries?tag=x&per_page=2&cursor=\(PercentEncoding.encode(cursor))"
            // Another filter, or an altered cursor: 400.
            #expect(t.request("GET", "/api/entries?per_page=2&cursor=\(PercentEncoding.encode(cursor))").status == 400)
            #expect(t.request("GET", "/api/diaries/1/entries?tag=x&per_page=2&cursor=\(PercentEncoding.encode(cursor))").status == 400)
            let altered = String(cursor.dropLast()) + (cursor.last == "A" ? "B" : "A")
            #expect(t.request("GET", "/api/entries?tag=x&per_page=2&cursor=\(PercentEncoding.encode(altered))").status == 400)
        }
        #expect(pages == 3)
        #expect(titles == ["e5", "e4", "e3", "e2", "e1"])
    }

    @Test func exportsStreamedAndImportsBothFormats() throws {
        let source = try TestApplication()
        let token = try source.addUser("alice")
        for number in 1...700 {
            _ = try post(source, token, #"{"title":"n\#(number)","body":"body \#(number)","tags":["t\#(number % 3)"]}"#)
        }
        let ndjson = source.request("GET", "/api/export?format=ndjson")
        #expect(ndjson.status == 200)
        #expect(ndjson.headers["Content-Type"] == "application/x-ndjson; charset=utf-8")
        let ndjsonBytes = try #require(ndjson.stream).collect()
        let lines = ndjsonBytes.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 700)
        let json = source.request("GET", "/api/export?format=json")
        let exported = try DiaryJSON.makeDecoder().decode([Entry].self, from: Data(try #require(json.stream).collect()))
        #expect(exported.count == 700 && exported.first?.id == 1)
        #expect(source.request("GET", "/api/export?format=xml").status == 400)

        let target = try TestApplication()
        let targetToken = try target.addUser("alice")
        let half = Array(lines.prefix(350)).joined(separator: [UInt8(ascii: "\n")])
        let first = target.request("POST", "/api/import", token: targetToken, contentType: "application/x-ndjson", body: Array(half))
        #expect(first.status == 200, "\(first.text)")
        #expect(try first.decoded(ImportResult.self) == ImportResult(created: 350, skipped: 0))
        let all = try DiaryJSON.makeEncoder().encode(exported)
        let second = target.request("POST", "/api/import", token: targetToken, body: Array(all))
        #expect(try second.decoded(ImportResult.self) == ImportResult(created: 350, skipped: 350))
        let again = try target.request("GET", "/api/export?format=json").stream?.collect() ?? []
        #expect(try DiaryJSON.makeDecoder().decode([Entry].self, from: Data(again)) == exported)
        #expect(target.request("POST", "/api/import", body: Array(all)).status == 401)
        let bob = try target.addUser("bob")
        #expect(target.request("POST", "/api/import", token: bob, body: Array(all)).status == 403)
    }
}

extension SearchRouteTests {
    /// An id near 2^63 would leave AUTOINCREMENT no id for the next entry: refused before any write.
    @Test func refusesImportedIDsBeyondTheSafeRange() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let entry = #"{"entry_id":9223372036854775807,"diary_id":1,"author":"alice","title":"t","body":"","created":"2026-11-01T00:00:00Z","updated":"2026-11-01T00:00:00Z","tags":[]}"#
        let response = t.request("POST", "/api/import", token: token, json: "[\(entry)]")
        #expect(response.status == 422, "\(response.text)")
        #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"still fine","body":""}"#).status == 201)
    }
}

extension SearchRouteTests {
    /// Found by schemathesis: PUT and PATCH checked their tags, and an emoji modifier after a
    /// comma hid the comma from a Character-based split.
    @Test func putAndPatchRefuseBadTagsAndCommasNeverJoinTags() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let entry = try post(t, token, #"{"title":"t","body":""}"#)
        for method in ["PUT", "PATCH"] {
            let response = t.request(method, "/api/entries/\(entry.id)", token: token, json: #"{"title":"t","body":"","tags":[""]}"#)
            #expect(response.status == 422, "\(method): \(response.text)")
        }
        let patched = t.request("PATCH", "/api/entries/\(entry.id)", token: token, json: #"{"tags":["a\u0301 b","x","🏻y"," \u0301z"]}"#)
        #expect(patched.status == 200, "\(patched.text)")
        let tags = try patched.decoded(Entry.self).tags
        #expect(tags.count == 4, "\(tags)")
        #expect(tags.allSatisfy { !$0.unicodeScalars.contains { $0 == "," || $0.properties.isWhitespace } }, "\(tags)")
        #expect(try t.request("GET", "/api/entries/\(entry.id)").decoded(Entry.self).tags == tags)
        #expect(t.request("GET", "/api/entries?page=92233720368547759").status == 400)
    }
}
