import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import StoreTestSupport
import Testing

/// What Micropub does with what a diary has and the specification leaves open: discovery,
/// drafts, visibility, which diary, whose posts a query reads, and the limits of updates.
@Suite struct MicropubDiaryTests {
    typealias Client = MicropubTests.Client
    let site = MicropubTests.site

    @Test func everyPageNamesTheEndpointInItsHeadAndItsHeaders() throws {
        let c = try Client()
        let entry = try c.created(c.form([("h", "entry"), ("content", "found")]))
        for target in ["/", "/entries/\(entry.id)", "/search?q=found", "/tags/x", "/entries/999"] {
            let page = c.t.request("GET", target)
            #expect(page.text.contains(#"<link rel="micropub" href="/micropub">"#), "\(target)")
            #expect(page.headers["Link"] == #"</micropub>; rel="micropub""#, "\(target)")
        }
        // Not on the API or the feeds.
        #expect(c.t.request("GET", "/api/entries").headers["Link"]?.contains("micropub") != true)
        #expect(c.t.request("GET", "/feed.atom").headers["Link"] == nil)
    }

    @Test func draftsVisibilityAndTheDateArePassedThrough() throws {
        let c = try Client()
        let draft = try c.created(c.form([("h", "entry"), ("name", "Later"), ("content", "d"), ("post-status", "draft"), ("visibility", "unlisted")]))
        #expect(draft.draft && draft.visibility == .unlisted && draft.title == "Later")
        #expect(c.t.request("GET", "/entries/\(draft.id)").status == 404)
        let dated = try c.created(c.form([("h", "entry"), ("content", "x"), ("published", "2020-02-03T04:05:06+09:00"), ("visibility", "private")]))
        #expect(RFC3339.string(from: dated.created) == "2020-02-02T19:05:06Z" && dated.visibility == .private)
        // Publishing the draft through an update.
        let url = site + "/entries/\(draft.id)"
        #expect(c.json(#"{"action":"update","url":"\#(url)","replace":{"post-status":["published"],"visibility":["public"]}}"#).status == 204)
        #expect(c.t.request("GET", "/entries/\(draft.id)").status == 200)
        for (field, value) in [("post-status", "scheduled"), ("visibility", "friends"), ("published", "yesterday")] {
            MicropubTests.expectError(c.form([("h", "entry"), ("content", "x"), (field, value)]), 400, "invalid_request")
        }
    }

    @Test func aNoteIsTitledByItsFirstLineAndTheRulesOfEntriesHold() throws {
        let c = try Client()
        let long = String(repeating: "word ", count: 40)
        let note = try c.created(c.form([("h", "entry"), ("content", "\n\(long)\nsecond line")]))
        #expect(note.title.hasSuffix("…") && note.title.count <= 81 && !note.title.contains("\n"))
        #expect(try c.created(c.json(#"{"type":["h-entry"],"properties":{"photo":["https://a.example/p.jpg"]}}"#)).title == "Photo")
        MicropubTests.expectError(c.form([("h", "entry"), ("name", String(repeating: "n", count: 201))]), 400, "invalid_request")
        MicropubTests.expectError(c.form([("h", "event"), ("name", "party")]), 400, "invalid_request")
        MicropubTests.expectError(c.form([("content", "no h")]), 400, "invalid_request")
        MicropubTests.expectError(c.json("not json"), 400, "invalid_request")
        MicropubTests.expectError(c.t.request("POST", "/micropub", token: c.token, contentType: "text/plain", body: Array("x".utf8)), 400, "invalid_request")
    }

    @Test func theDestinationIsADiaryOfTheCallers() throws {
        let c = try Client()
        let bob = try c.t.addUser("bob")
        // The first post makes the caller's first diary, as POST /api/entries does.
        let first = try c.created(c.form([("h", "entry"), ("content", "first diary")]))
        let travel = try c.t.request("POST", "/api/diaries", token: c.token, json: #"{"title":"Travel"}"#).decoded(Diary.self)
        let bobs = try c.t.request("POST", "/api/diaries", token: bob, json: #"{"title":"Bob's"}"#).decoded(Diary.self)
        let listed = c.query("q=destination").text
        #expect(listed.contains(#""uid":"\#(site)/diaries/\#(travel.id)""#) && listed.contains(#""name":"Travel""#) && !listed.contains("Bob"))
        let chosen = try c.created(c.form([("h", "entry"), ("content", "travel"), ("mp-destination", site + "/diaries/\(travel.id)")]))
        #expect(chosen.diaryID == travel.id && first.diaryID != travel.id)
        MicropubTests.expectError(c.form([("h", "entry"), ("content", "x"), ("mp-destination", site + "/diaries/\(bobs.id)")]), 403, "forbidden")
        MicropubTests.expectError(c.form([("h", "entry"), ("content", "x"), ("mp-destination", "https://elsewhere.example/")]), 400, "invalid_request")
    }

    @Test func photosByURLAreTheCallersImagesOrOtherSites() throws {
        let c = try Client()
        let bob = try c.t.addUser("bob")
        let own = try c.t.request("POST", "/api/media", token: c.token, contentType: "image/png", body: TestImages.png).decoded(MediaItem.self)
        let bobs = try c.t.request("POST", "/api/media", token: bob, contentType: "image/png", body: TestImages.png).decoded(MediaItem.self)
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"content":["mine"],"photo":["\#(site + own.url)"]}}"#))
        #expect(entry.body.hasSuffix("![](\(own.url))") && c.page(entry).contains("<img src=\"\(own.url)\" alt=\"\" width=\"6\" height=\"4\""))
        for url in [site + bobs.url, "/media/not-an-id", "javascript:alert(1)", "file:///etc/passwd"] {
            MicropubTests.expectError(c.json(#"{"type":["h-entry"],"properties":{"content":["x"],"photo":["\#(url)"]}}"#), 400, "invalid_request")
        }
    }

    @Test func queriesAndUpdatesReachOnlyTheCallersPosts() throws {
        let c = try Client()
        let bob = try c.t.addUser("bob")
        let shown = try c.created(c.form([("h", "entry"), ("content", "public")]))
        let hidden = try c.created(c.form([("h", "entry"), ("content", "secret words"), ("visibility", "private")]))
        let draft = try c.created(c.form([("h", "entry"), ("content", "draft words"), ("post-status", "draft")]))
        // To bob, alice's private entry and draft answer what an id never used does; her public one is not his.
        let never = c.query("q=source&url=\(Client.escape(site + "/entries/999"))", token: bob)
        MicropubTests.expectError(never, 400, "invalid_request")
        for entry in [hidden, draft] {
            let url = site + "/entries/\(entry.id)"
            let answer = c.query("q=source&url=\(Client.escape(url))", token: bob)
            #expect(answer.status == 400 && answer.text == never.text.replacingOccurrences(of: "/entries/999", with: "/entries/\(entry.id)"))
            #expect(!answer.text.contains("words"))
            let deleted = c.json(#"{"action":"delete","url":"\#(url)"}"#, token: bob)
            #expect(deleted.status == 400 && deleted.text == answer.text)
        }
        MicropubTests.expectError(c.query("q=source&url=\(Client.escape(site + "/entries/\(shown.id)"))", token: bob), 403, "forbidden")
        MicropubTests.expectError(c.json(#"{"action":"delete","url":"\#(site)/entries/\#(shown.id)"}"#, token: bob), 403, "forbidden")
        // The owner reads her own, draft included.
        let draftSource = try c.source(draft)["properties"] as? [String: [Any]]
        #expect(draftSource?["post-status"] as? [String] == ["draft"])
        for query in ["", "q=nothing", "q=source", "q=source&url=https%3A%2F%2Felsewhere.example%2Fentries%2F1"] {
            MicropubTests.expectError(c.query(query), 400, "invalid_request")
        }
    }

    @Test func updatesOfWhatAnEntryHasNotAreRefusedAndChangeNothing() throws {
        let c = try Client()
        let entry = try c.created(c.json(#"{"type":["h-entry"],"properties":{"name":["T"],"content":["c"]}}"#))
        let url = site + "/entries/\(entry.id)"
        for operations in [#""replace":{"photo":["https://a.example/p.jpg"]}"#, #""add":{"content":["more"]}"#, #""delete":["name"]"#, #""replace":{}"#] {
            MicropubTests.expectError(c.json(#"{"action":"update","url":"\#(url)",\#(operations)}"#), 400, "invalid_request")
        }
        MicropubTests.expectError(c.form([("action", "update"), ("url", url)]), 400, "invalid_request")
        #expect(try c.t.request("GET", "/api/entries/\(entry.id)", token: c.token).decoded(Entry.self) == entry)
        let renamed = c.json(#"{"action":"update","url":"\#(url)","replace":{"name":["New"],"content":[{"html":"<p><em>now</em></p>"}]}}"#)
        #expect(renamed.status == 204)
        let now = try c.t.request("GET", "/api/entries/\(entry.id)", token: c.token).decoded(Entry.self)
        #expect(now.title == "New" && now.body == "*now*")
    }
}
