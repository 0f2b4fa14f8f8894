import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import Synchronization
import Testing

/// A clock tests move by hand, so that Last-Modified and updated times are under control.
final class ManualClock: Sendable {
    private let seconds = Mutex<TimeInterval>(1_795_321_800)
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
    func advance(_ by: TimeInterval) { seconds.withLock { $0 += by } }
}

// MARK: - Conditional reads

@Suite struct ConditionalReadTests {
    @Test func everyReadCarriesAnETagAndAMatchingOneGets304() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let entry = try t.request("POST", "/api/entries", token: token, json: #"{"title":"a","body":"b"}"#).decoded(Entry.self)
        for target in ["/api/entries/\(entry.id)", "/api/entries", "/api/diaries/\(entry.diaryID)", "/api/diaries", "/api/diaries/\(entry.diaryID)/entries"] {
            let first = t.request("GET", target)
            let tag = try #require(first.headers["ETag"], "\(target)")
            #expect(tag.count == 18 && tag.hasPrefix("\"") && tag.hasSuffix("\""))
            #expect(first.headers["Last-Modified"]?.hasSuffix(" GMT") == true, "\(target)")
            let again = t.request("GET", target, headers: [("If-None-Match", tag)])
            #expect(again.status == 304, "\(target)")
            #expect(again.body.isEmpty && again.headers["ETag"] == tag)
            #expect(t.request("GET", target, headers: [("If-None-Match", #""0000000000000000", W/\#(tag)"#)]).status == 304)
            #expect(t.request("GET", target, headers: [("If-None-Match", #""0000000000000000""#)]).status == 200)
            #expect(t.request("HEAD", target).headers["ETag"] == tag)
        }
    }

    @Test func theETagChangesWithTheEntryAndAcrossProcessesStaysTheSame() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let entry = try t.request("POST", "/api/entries", token: token, json: #"{"title":"a","body":"b"}"#).decoded(Entry.self)
        let path = "/api/entries/\(entry.id)"
        let before = try #require(t.request("GET", path).headers["ETag"])
        let pageBefore = try #require(t.request("GET", "/api/entries").headers["ETag"])
        _ = t.request("PATCH", path, token: token, json: #"{"body":"changed"}"#)
        #expect(t.request("GET", path, headers: [("If-None-Match", before)]).status == 200)
        #expect(t.request("GET", "/api/entries", headers: [("If-None-Match", pageBefore)]).status == 200)
        // A second application on the same file (a restart) gives the same tag for the same bytes.
        let restarted = DiaryApplication(store: t.store)
        let now = t.request("GET", path).headers["ETag"]
        #expect(restarted.respond(to: Request(method: "GET", target: path)).headers["ETag"] == now)
    }

    @Test func ifModifiedSinceAnswers304UntilAChangeIncludingADeletion() throws {
        let clock = ManualClock()
        let t = try TestApplication(clock: { clock.now })
        let token = try t.addUser("alice")
        let one = try t.request("POST", "/api/entries", token: token, json: #"{"title":"one","body":""}"#).decoded(Entry.self)
        _ = t.request("POST", "/api/entries", token: token, json: #"{"title":"two","body":""}"#)
        let page = t.request("GET", "/api/entries")
        let lastModified = try #require(page.headers["Last-Modified"])
        #expect(lastModified == "Sun, 22 Nov 2026 04:30:00 GMT")
        #expect(t.request("GET", "/api/entries", headers: [("If-Modified-Since", lastModified)]).status == 304)
        #expect(t.request("GET", "/api/entries", headers: [("If-Modified-Since", "not a date")]).status == 200)
        clock.advance(5)
        #expect(t.request("DELETE", "/api/entries/\(one.id)", token: token).status == 204)
        #expect(t.request("GET", "/api/entries", headers: [("If-Modified-Since", lastModified)]).status == 200)
    }
}

// MARK: - Safe edits

@Suite struct IfMatchTests {
    @Test func aStaleETagGets412AndChangesNothing() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let entry = try t.request("POST", "/api/entries", token: token, json: #"{"title":"a","body":"b"}"#).decoded(Entry.self)
        let path = "/api/entries/\(entry.id)"
        let tag = try #require(t.request("GET", path).headers["ETag"])

        let first = t.request("PUT", path, token: token, json: #"{"title":"mine","body":"first"}"#, headers: [("If-Match", tag)])
        #expect(first.status == 200)
        for (method, json) in [("PUT", #"{"title":"theirs","body":"late"}"#), ("PATCH", #"{"body":"late"}"#), ("DELETE", nil)] {
            let stale = t.request(method, path, token: token, json: json, headers: [("If-Match", tag)])
            #expect(stale.status == 412, "\(method)")
            #expect(stale.problem?.status == 412)
        }
        #expect(try t.request("GET", path).decoded(Entry.self).body == "first")
        let current = try #require(t.request("GET", path).headers["ETag"])
        #expect(t.request("PATCH", path, token: token, json: #"{"body":"second"}"#, headers: [("If-Match", "\"x\", \(current)")]).status == 200)
        #expect(t.request("PATCH", path, token: token, json: #"{"body":"third"}"#, headers: [("If-Match", "*")]).status == 200)
        #expect(t.request("DELETE", path, token: token, headers: [("If-Match", "W/\(current)")]).status == 412)
        let latest = try #require(t.request("GET", path).headers["ETag"])
        #expect(t.request("DELETE", path, token: token, headers: [("If-Match", latest)]).status == 204)
    }

    /// An edit's answer is the entry's new state, with the ETag and date a GET would give, so
    /// the next edit can send it in If-Match without reading the entry again.
    @Test func anEditAnswersWithTheNewETag() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let entry = try t.request("POST", "/api/entries", token: token, json: #"{"title":"a","body":"b"}"#).decoded(Entry.self)
        let path = "/api/entries/\(entry.id)"
        var tag = try #require(t.request("GET", path).headers["ETag"])
        for (method, json) in [("PUT", #"{"title":"c","body":"d"}"#), ("PATCH", #"{"body":"e","tags":["x"]}"#)] {
            let edited = t.request(method, path, token: token, json: json, headers: [("If-Match", tag)])
            #expect(edited.status == 200, "\(method)")
            let read = t.request("GET", path)
            #expect(edited.headers["ETag"] != tag && edited.headers["ETag"] == read.headers["ETag"], "\(method)")
            #expect(edited.headers["Last-Modified"] == read.headers["Last-Modified"] && edited.body == read.body, "\(method)")
            #expect(edited.headers["Cache-Control"] == "no-store", "\(method)")
            tag = try #require(edited.headers["ETag"])
        }
        #expect(t.request("DELETE", path, token: token, headers: [("If-Match", tag)]).status == 204)
    }
}

// MARK: - Retry-safe posting

@Suite struct IdempotencyTests {
    @Test func theSameKeyTwiceWritesOneEntry() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let json = #"{"title":"once","body":"only once"}"#
        let first = t.request("POST", "/api/entries", token: token, json: json, headers: [("Idempotency-Key", "k-1")])
        let second = t.request("POST", "/api/entries", token: token, json: #"{ "body":"only once", "title":"once" }"#, headers: [("Idempotency-Key", "k-1")])
        #expect(first.status == 201 && second.status == 201)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        #expect(second.headers["Idempotent-Replayed"] == "true")
        #expect(try first.decoded(Entry.self) == second.decoded(Entry.self))
        #expect(second.headers["Location"] == first.headers["Location"])
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 1)

        let different = t.request("POST", "/api/entries", token: token, json: #"{"title":"other","body":""}"#, headers: [("Idempotency-Key", "k-1")])
        #expect(different.problem?.status == 422)
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 1)
    }

    @Test func keysBelongToOneUserAndExpireAfterADay() throws {
        let clock = ManualClock()
        let t = try TestApplication(clock: { clock.now })
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let json = #"{"title":"t","body":""}"#
        let a = try t.request("POST", "/api/entries", token: alice, json: json, headers: [("Idempotency-Key", "shared")]).decoded(Entry.self)
        let b = try t.request("POST", "/api/entries", token: bob, json: json, headers: [("Idempotency-Key", "shared")]).decoded(Entry.self)
        #expect(a.id != b.id)
        clock.advance(24 * 60 * 60 + 1)
        let later = t.request("POST", "/api/entries", token: alice, json: json, headers: [("Idempotency-Key", "shared")])
        #expect(later.headers["Idempotent-Replayed"] == nil)
        #expect(try later.decoded(Entry.self).id != a.id)
    }

    @Test func diariesTooAndBadKeysAre400() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let first = try t.request("POST", "/api/diaries", token: token, json: #"{"title":"Trips"}"#, headers: [("Idempotency-Key", "d")]).decoded(Diary.self)
        let again = t.request("POST", "/api/diaries", token: token, json: #"{"title":"Trips"}"#, headers: [("Idempotency-Key", "d")])
        #expect(try again.decoded(Diary.self).id == first.id)
        // The key names an entry creation now: another kind of request.
        #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"Trips"}"#, headers: [("Idempotency-Key", "d")]).status == 422)
        for key in ["", "has space", String(repeating: "k", count: 256), "ключ"] {
            #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"t","body":""}"#, headers: [("Idempotency-Key", key)]).problem?.status == 400, "\(key)")
        }
    }
}

// MARK: - Navigation, plain text, CORS, the document

@Suite struct NavigationAndFormatTests {
    @Test func pagesCarryLinkAndTotalCount() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        for i in 1...5 { _ = t.request("POST", "/api/entries", token: token, json: #"{"title":"\#(i)","body":""}"#) }
        let middle = t.request("GET", "/api/entries?page=2&per_page=2")
        #expect(middle.headers["X-Total-Count"] == "5")
        #expect(middle.headers["Link"] == [
            #"</api/entries?page=1&per_page=2>; rel="first""#, #"</api/entries?page=1&per_page=2>; rel="prev""#,
            #"</api/entries?page=3&per_page=2>; rel="next""#, #"</api/entries?page=3&per_page=2>; rel="last""#,
        ].joined(separator: ", "))
        let diaryID = try t.request("GET", "/api/diaries").decoded(DiaryList.self).diaries[0].id
        let only = t.request("GET", "/api/diaries/\(diaryID)/entries?per_page=10")
        #expect(only.headers["Link"] == #"</api/diaries/\#(diaryID)/entries?page=1&per_page=10>; rel="first", </api/diaries/\#(diaryID)/entries?page=1&per_page=10>; rel="last""#)
    }

    @Test func plainTextAndMarkdownPostsBecomeEntries() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let markdown = t.request("POST", "/api/entries", token: token, json: "# Rainy day\n\nStayed in.\n", contentType: "text/markdown; charset=utf-8")
        #expect(markdown.status == 201)
        let entry = try markdown.decoded(Entry.self)
        #expect(entry.title == "Rainy day" && entry.body == "Stayed in.")
        let plain = try t.request("POST", "/api/entries", token: token, json: "Just a title", contentType: "text/plain").decoded(Entry.self)
        #expect(plain.title == "Just a title" && plain.body.isEmpty)
        #expect(t.request("POST", "/api/entries", token: token, json: "\n\n", contentType: "text/plain").status == 422)
        #expect(t.request("POST", "/api/diaries", token: token, json: "Title", contentType: "text/plain").status == 415)
    }

    @Test func corsOnlyForConfiguredOrigins() throws {
        let t = try TestApplication(configuration: .init(corsOrigins: ["https://app.example"]))
        let preflight = t.request("OPTIONS", "/api/entries", headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")])
        #expect(preflight.status == 204)
        #expect(preflight.headers["Access-Control-Allow-Origin"] == "https://app.example")
        #expect(preflight.headers["Access-Control-Allow-Headers"]?.contains("Idempotency-Key") == true)
        let get = t.request("GET", "/api/entries", headers: [("Origin", "https://app.example")])
        #expect(get.headers["Access-Control-Expose-Headers"]?.contains("ETag") == true)
        #expect(get.headers["Access-Control-Expose-Headers"]?.contains("X-Total-Count") == true)
        #expect(get.headers["Vary"] == "Origin")
        let stranger = t.request("GET", "/api/entries", headers: [("Origin", "https://evil.example")])
        #expect(stranger.headers["Access-Control-Allow-Origin"] == nil)
        let closed = try TestApplication()
        #expect(closed.request("GET", "/api/entries", headers: [("Origin", "https://app.example")]).headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test func theOpenAPIDocumentIsServed() throws {
        let t = try TestApplication()
        let response = t.request("GET", "/api/openapi.json")
        #expect(response.status == 200)
        let document = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect((document?["openapi"] as? String)?.hasPrefix("3.1") == true)
        #expect(t.request("GET", "/api/openapi.json", headers: [("If-None-Match", response.headers["ETag"] ?? "")]).status == 304)
    }
}

@Suite struct IdempotencyAfterDeletionTests {
    /// Replaying a key whose entry was deleted since says so (404), whatever the body names.
    @Test func aReplayOfADeletedEntryIs404EvenWithADiaryID() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let diaryID = try t.request("GET", "/api/diaries").decoded(DiaryList.self).diaries[0].id
        let json = #"{"title":"t","body":"","diary_id":\#(diaryID)}"#
        let entry = try t.request("POST", "/api/entries", token: token, json: json, headers: [("Idempotency-Key", "gone")]).decoded(Entry.self)
        #expect(t.request("DELETE", "/api/entries/\(entry.id)", token: token).status == 204)
        let replay = t.request("POST", "/api/entries", token: token, json: json, headers: [("Idempotency-Key", "gone")])
        #expect(replay.problem?.status == 404)
    }
}
