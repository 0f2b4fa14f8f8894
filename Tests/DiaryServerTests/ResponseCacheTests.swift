import DiaryAPI
import DiaryServer
import DiaryStore
import Foundation
import HTTPCore
import HTTPTypes
import Synchronization
import Testing

/// The response cache must be invisible: every answer it serves is byte for byte the one the
/// uncached application gives at that moment, and no write is missed once it has returned.
@Suite struct ResponseCacheTests {
    /// The same store behind the cached application and one that keeps nothing.
    final class Pair: Sendable {
        let t: TestApplication
        let uncached: DiaryApplication

        init(byteLimit: Int = 32 << 20) throws {
            t = try TestApplication(configuration: .init(responseCacheBytes: byteLimit))
            uncached = DiaryApplication(store: t.store, configuration: .init(responseCacheBytes: 0))
        }

        var cache: ResponseCache { t.app.responseCache! }

        /// Asks both; they must agree on status, every header in order, and every body byte.
        func expectSameAnswer(_ target: String, headers extra: [(String, String)] = [], sourceLocation: SourceLocation = #_sourceLocation) {
            let cached = t.request("GET", target, headers: extra)
            var headers = HTTPFields()
            for (name, value) in extra { headers.add(HTTPField.Name(name)!, value) }
            let fresh = uncached.respond(to: Request(method: "GET", target: target, headers: headers))
            #expect(cached.status == fresh.status, "\(target)", sourceLocation: sourceLocation)
            #expect(cached.headers.map { "\($0.name.rawName): \($0.value)" } == fresh.headers.map { "\($0.name.rawName): \($0.value)" }, "\(target)", sourceLocation: sourceLocation)
            #expect(cached.body == fresh.body, "\(target)", sourceLocation: sourceLocation)
        }
    }

    static let targets = [
        "/api/entries", "/api/entries?per_page=2", "/api/entries?page=2&per_page=2", "/api/entries/1", "/api/entries/2",
        "/api/entries/999", "/api/diaries", "/api/diaries/1", "/api/diaries/1/entries", "/api/tags", "/api/health",
        "/api/entries?q=%E4%BA%AC%E9%83%BD", "/api/entries?tag=travel", "/api/entries?per_page=abc", "/api/openapi.json",
        // The reading pages and feeds go through the same cache.
        "/", "/entries/1", "/entries/999", "/diaries/1", "/tags/travel", "/search?q=%E4%BA%AC%E9%83%BD", "/feed.atom", "/diaries/1/feed.atom",
    ]

    @Test func aKeptAnswerIsTheFreshAnswerByteForByte() throws {
        let p = try Pair()
        let token = try p.t.addUser("alice")
        for (title, body) in [("京都の旅", "\"quotes\", \\ backslash,\ttab\u{1}control"), ("plain", "text </script> & 😀"), ("third", "")] {
            let json = try String(decoding: JSONSerialization.data(withJSONObject: ["title": title, "body": body, "tags": ["travel"]]), as: UTF8.self)
            #expect(p.t.request("POST", "/api/entries", token: token, json: json).status == 201)
        }
        for target in Self.targets {
            p.expectSameAnswer(target)
            p.expectSameAnswer(target)  // the second from the cache
        }
        let counts = p.cache.counts
        #expect(counts.hits >= 10, "the second round was served from the cache")
    }

    @Test func everyKindOfWriteIsSeenByTheNextRead() throws {
        let p = try Pair()
        let token = try p.t.addUser("alice")
        let watched = ["/api/entries", "/api/entries/1", "/api/diaries", "/api/diaries/1", "/api/diaries/1/entries", "/api/tags", "/api/entries?q=changed", "/", "/entries/1", "/diaries/1", "/feed.atom", "/tags/y"]
        func readAll() {
            for target in watched {
                p.expectSameAnswer(target)
                p.expectSameAnswer(target)
            }
        }
        readAll()
        let writes: [(String, String, String?)] = [
            ("POST", "/api/entries", #"{"title":"first","body":"b","tags":["x"]}"#),
            ("POST", "/api/entries", #"{"title":"second","body":"b"}"#),
            ("PATCH", "/api/entries/1", #"{"body":"changed"}"#),
            ("PUT", "/api/entries/1", #"{"title":"replaced","body":"changed again","tags":["y"]}"#),
            ("POST", "/api/diaries", #"{"title":"another diary"}"#),
            ("DELETE", "/api/entries/2", nil),
        ]
        for (method, target, json) in writes {
            let before = p.t.request("GET", "/api/entries").body
            let answer = p.t.request(method, target, token: token, json: json)
            #expect((200..<300).contains(answer.status.code), "\(method) \(target)")
            #expect(p.t.request("GET", "/api/entries").body != before || method == "POST" && target == "/api/diaries", "\(method) \(target)")
            readAll()
        }
    }

    @Test func aWriteByAnotherConnectionOrProcessIsSeen() throws {
        let p = try Pair()
        let token = try p.t.addUser("alice")
        _ = p.t.request("POST", "/api/entries", token: token, json: #"{"title":"ours","body":""}"#)
        let kept = p.t.request("GET", "/api/entries")
        #expect(p.t.request("GET", "/api/entries").body == kept.body)
        // A second store on the database has its own connections, as another process would.
        let other = try p.t.openAnotherStore()
        defer { try? TestApplication.close(other) }
        let user = try #require(try other.user(tokenHash: TokenHash(token: token)))
        _ = try other.createEntry(userID: user.id, diaryID: nil, title: "theirs", body: "", tags: [], created: nil, visibility: nil, draft: false, idempotency: nil)
        let page = try p.t.request("GET", "/api/entries").decoded(EntryPage.self)
        #expect(page.entries.map(\.title) == ["theirs", "ours"])
        p.expectSameAnswer("/api/entries")
    }

    @Test func conditionalRequestsAndHeadOnAKeptAnswer() throws {
        let p = try Pair()
        let token = try p.t.addUser("alice")
        _ = p.t.request("POST", "/api/entries", token: token, json: #"{"title":"a","body":""}"#)
        let first = p.t.request("GET", "/api/entries/1")
        let tag = try #require(first.headers["ETag"])
        let lastModified = try #require(first.headers["Last-Modified"])
        let hitsBefore = p.cache.counts.hits
        let notModified = p.t.request("GET", "/api/entries/1", headers: [("If-None-Match", tag)])
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.headers["Content-Type"] == nil)
        #expect(p.t.request("GET", "/api/entries/1", headers: [("If-Modified-Since", lastModified)]).status == 304)
        #expect(p.t.request("GET", "/api/entries/1", headers: [("If-None-Match", #""0000000000000000""#)]).body == first.body)
        #expect(p.t.request("HEAD", "/api/entries/1").headers["ETag"] == tag)
        #expect(p.cache.counts.hits == hitsBefore + 4)
        p.expectSameAnswer("/api/entries/1", headers: [("If-None-Match", tag)])
    }

    @Test func errorsAreNotKeptAndAnswersOverTheBudgetAreServedUncached() throws {
        let p = try Pair(byteLimit: 600)
        let token = try p.t.addUser("alice")
        #expect(p.t.request("GET", "/api/entries/1").status == 404)
        _ = p.t.request("POST", "/api/entries", token: token, json: #"{"title":"a","body":"\#(String(repeating: "long ", count: 200))"}"#)
        #expect(p.t.request("GET", "/api/entries/1").status == 200)
        p.expectSameAnswer("/api/entries/1")
        p.expectSameAnswer("/api/entries/1")
        p.expectSameAnswer("/api/health")
        p.expectSameAnswer("/api/health")
        #expect(p.cache.counts.hits == 1, "only the small health answer fits in 600 bytes")
    }

    /// Past the budget a quarter of it is freed, not all of it: the answer just built and
    /// others stay kept, and the bytes kept never pass the limit.
    @Test func aFullCacheDropsSomeAnswersNotAll() throws {
        let p = try Pair(byteLimit: 8_000)
        let token = try p.t.addUser("alice")
        for index in 1...30 {
            #expect(p.t.request("POST", "/api/entries", token: token, json: #"{"title":"entry \#(index)","body":"\#(String(repeating: "x", count: 200))"}"#).status == 201)
        }
        for id in 1...30 {
            p.expectSameAnswer("/api/entries/\(id)")
            #expect(p.cache.counts.bytes <= 8_000)
        }
        let hitsBefore = p.cache.counts.hits
        p.expectSameAnswer("/api/entries/30")
        #expect(p.cache.counts.hits == hitsBefore + 1, "the newest answer is kept")
        var kept = 0
        for id in 1...29 {
            let before = p.cache.counts.hits
            p.expectSameAnswer("/api/entries/\(id)")
            if p.cache.counts.hits > before { kept += 1 }
        }
        #expect(kept >= 3, "more than the newest answer survives a full cache")
    }

    /// Readers fill the cache while a writer writes: once a write has returned, no read may
    /// answer from before it.
    @Test func noReadAfterAWriteReturnedIsStaleUnderConcurrency() throws {
        let p = try Pair()
        let token = try p.t.addUser("alice")
        let stop = Atomic(false)
        let reads = Atomic(0)
        // Plain threads: the shared dispatch pool may be busy with other tests and start them late.
        let reading = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            Thread {
                var first = true
                while !stop.load(ordering: .relaxed) {
                    _ = p.t.request("GET", "/api/entries?per_page=1")
                    reads.add(1, ordering: .relaxed)
                    if first { reading.signal() }
                    first = false
                }
                finished.signal()
            }.start()
        }
        var readersStopped = false
        func stopReaders() -> Bool {
            if !readersStopped {
                readersStopped = true
                stop.store(true, ordering: .relaxed)
                for _ in 0..<2 {
                    if finished.wait(timeout: .now() + 60) == .timedOut { return false }
                }
            }
            return true
        }
        defer { _ = stopReaders() }  // also when a `#require` below ends the test early
        // Both readers are reading before the first write: they read, and fill the cache, throughout.
        for _ in 0..<2 {
            try #require(reading.wait(timeout: .now() + 60) == .success, "a reader thread did not get its first answer within 60 s")
        }
        for expected in 1...60 {
            let created = p.t.request("POST", "/api/entries", token: token, json: #"{"title":"n\#(expected)","body":""}"#)
            #expect(created.status == 201)
            let page = try p.t.request("GET", "/api/entries?per_page=1").decoded(EntryPage.self)
            #expect(page.total == expected && page.entries.first?.title == "n\(expected)")
        }
        #expect(stopReaders(), "a reader thread did not stop within 60 s")
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(p.cache.counts.hits > 0)
    }
}
