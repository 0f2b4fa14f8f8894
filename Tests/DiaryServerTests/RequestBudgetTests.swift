import DiaryAPI
import DiarySQLiteStore
@testable import DiaryServer
import DiaryStore
import Foundation
import HTTPCore
import HTTPTypes
import StoreTestSupport
import Testing

/// No request can hold the others hostage: the query timeout (503), the search gate (503),
/// the rate limit of anonymous searches (429) and the deep-page cap (400), in-process.
@Suite struct RequestBudgetTests {
    /// A GET from `address`, as the transport hands it over.
    private func get(_ t: TestApplication, _ target: String, from address: String? = "192.0.2.1", token: String? = nil) -> Response {
        var headers = HTTPFields()
        if let token { headers.add(.authorization, "Bearer \(token)") }
        var request = Request(method: .get, target: target, headers: headers)
        request.clientAddress = address
        return t.app.respond(to: request)
    }

    /// A budget of 1 ns stops any statement longer than `ReadDeadline.instructionsPerCheck`
    /// instructions, however fast the machine: a search over a thousand entries is answered 503
    /// with Retry-After, while an entry read by id, whose statements are short, is answered.
    @Test(.enabled(if: TestEngine.current == .sqlite, "statement_timeout counts time, not instructions: see PostgresDeadlineTests"))
    func aSearchPastTheQueryTimeoutIs503WithRetryAfterWhileEntriesAreRead() throws {
        let t = try TestApplication(queryTimeout: .nanoseconds(1))
        _ = try t.addUser("alice")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        try #require(t.store as? SQLiteDiaryStore).insertEntries((0..<1000).map { n in
            SeedEntry(diaryID: 1, title: "day \(n)", body: "coffee by the river, day \(n)", created: start + Double(n) * 60)
        })
        let search = get(t, "/api/entries?q=river")
        #expect(search.status == 503, "\(search.text)")
        #expect(search.headers[.retryAfter] == "1")
        #expect(search.problem?.detail.contains("took longer than the server lets one request take") == true, "\(search.text)")
        let page = get(t, "/search?q=river")
        #expect(page.status == 503 && page.headers[.retryAfter] == "1")
        #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
        let entry = get(t, "/api/entries/1")
        #expect(entry.status == 200, "\(entry.text)")
    }

    @Test func anonymousSearchesPastTheirRateAre429PerAddress() throws {
        let limits = SearchLimits(concurrency: 4, queueWait: .seconds(5), ratePerSecond: 1, burst: 2)
        let t = try TestApplication(configuration: .init(searchLimits: limits))
        let token = try t.addUser("alice")
        // Distinct queries: a repeated one would be answered from the cache, which costs nothing.
        #expect(get(t, "/api/entries?q=one").status == 200)
        #expect(get(t, "/search?q=two").status == 200)
        let refused = get(t, "/api/entries?q=three")
        #expect(refused.status == 429, "\(refused.text)")
        #expect(refused.headers[.retryAfter] == "1")
        #expect(refused.problem?.title == "Too Many Requests")
        let page = get(t, "/search?q=four")
        #expect(page.status == 429 && page.headers[.retryAfter] == "1")
        #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
        // Another address has a bucket of its own; an IPv6 address is counted by its /64.
        #expect(get(t, "/api/entries?q=five", from: "192.0.2.2").status == 200)
        #expect(get(t, "/api/entries?q=six", from: "2001:db8::1").status == 200)
        #expect(get(t, "/api/entries?q=seven", from: "2001:db8::2").status == 200)
        #expect(get(t, "/api/entries?q=eight", from: "2001:db8::3").status == 429)
        // A token's searches, and what is not a search, are not counted.
        #expect(get(t, "/api/entries?q=nine", token: token).status == 200)
        #expect(get(t, "/api/entries").status == 200)
        #expect(get(t, "/api/entries/1").status == 404)
    }

    @Test func theRateLimitForgetsTheLeastRecentlySeenAddressWhenFull() {
        let limiter = SearchRateLimiter(ratePerSecond: 1, burst: 1, capacity: 2)
        let start = ContinuousClock.now
        let at = { (nanoseconds: Int64) in start + .nanoseconds(nanoseconds) }
        #expect(limiter.admit("192.0.2.1", now: at(0)))
        #expect(!limiter.admit("192.0.2.1", now: at(1)))
        #expect(limiter.admit("192.0.2.2", now: at(2)))
        #expect(limiter.admit("192.0.2.3", now: at(3)))
        #expect(limiter.count == 2)
        // 192.0.2.1, the least recently seen, was forgotten: it starts with a full bucket.
        #expect(limiter.admit("192.0.2.1", now: at(4)))
        #expect(limiter.count == 2)
        // A second later its token is back.
        #expect(!limiter.admit("192.0.2.1", now: at(5)))
        #expect(limiter.admit("192.0.2.1", now: at(1_000_000_006)))
        #expect(SearchRateLimiter.key("::ffff:192.0.2.1") == SearchRateLimiter.key("192.0.2.1"))
    }

    /// While every place at the gate is taken, a search waits, then 503; entry reads, lists and
    /// a search the cache answers go on; a place coming free lets a waiting search through.
    @Test func searchesWaitAtTheGateWhileEntriesAreRead() throws {
        let limits = SearchLimits(concurrency: 1, queueWait: .milliseconds(100), ratePerSecond: 0, burst: 1)
        let t = try TestApplication(configuration: .init(searchLimits: limits))
        let token = try t.addUser("alice")
        #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"Kyoto","body":"autumn leaves"}"#).status == 201)
        #expect(get(t, "/api/entries?q=kyoto").status == 200)  // kept in the cache
        let gate = t.app.searchAdmission.gate
        try #require(gate.enter(waitingAtMost: .zero))
        let refused = get(t, "/api/entries?q=autumn")
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.headers[.retryAfter] == "1")
        #expect(refused.problem?.detail.contains("as many searches as it runs at once") == true)
        #expect(get(t, "/api/entries/1").status == 200)
        #expect(get(t, "/api/entries").status == 200)
        #expect(get(t, "/api/entries?q=kyoto").status == 200)
        #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"Nara","body":"deer"}"#).status == 201)
        gate.leave()
        #expect(get(t, "/api/entries?q=autumn").status == 200)
        #expect(gate.taken == 0)
    }

    @Test func aSearchWaitingForItsTurnGoesInOnceAPlaceIsFree() throws {
        let limits = SearchLimits(concurrency: 1, queueWait: .seconds(60), ratePerSecond: 0, burst: 1)
        let t = try TestApplication(configuration: .init(searchLimits: limits))
        let gate = t.app.searchAdmission.gate
        try #require(gate.enter(waitingAtMost: .zero))
        let answered = DispatchSemaphore(value: 0)
        let status = StatusBox()
        Thread.detachNewThread { [self] in
            status.set(self.get(t, "/api/entries?q=waiting").status.code)
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 0.05) == .timedOut, "answered while the only place was taken")
        gate.leave()
        #expect(answered.wait(timeout: .now() + 30) == .success)
        #expect(status.get() == 200)
    }

    @Test func pagesPastTheCapAre400PointingToTheCursor() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        for title in ["one", "two"] {
            #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"\#(title)","body":""}"#).status == 201)
        }
        for target in ["/api/entries?page=501", "/api/entries?page=101&per_page=100", "/api/diaries/1/entries?page=10001&per_page=1"] {
            let refused = get(t, target)
            #expect(refused.status == 400, "\(target): \(refused.text)")
            #expect(refused.problem?.errors?.first?.field == "page")
            #expect(refused.problem?.detail.contains("next_cursor") == true, "\(refused.text)")
        }
        #expect(get(t, "/api/entries?page=500").status == 200)
        #expect(get(t, "/api/entries?page=100&per_page=100").status == 200)
        // A cursor reaches any depth; `page` is ignored beside it.
        let first = try get(t, "/api/entries?per_page=1").decoded(EntryPage.self)
        let cursor = try #require(first.nextCursor)
        let next = get(t, "/api/entries?per_page=1&page=20000&cursor=\(cursor)")
        #expect(next.status == 200, "\(next.text)")
        #expect(try next.decoded(EntryPage.self).entries.map(\.title) == ["one"])
    }

    @Test(arguments: [
        ("/api/entries?q=kyoto", true), ("/api/diaries/3/entries?q=kyoto&page=2", true), ("/search?q=kyoto", true),
        ("/api/entries?q=", false), ("/api/entries?q=+", false), ("/api/entries", false), ("/api/entries/1?q=x", false),
        ("/search", false), ("/api/entries?tag=q", false), ("/api/entries?faq=x", false), ("/api/entries?page=2&q=kyoto", true),
    ])
    func searchesAreTheListsWithAQuery(target: String, isSearch: Bool) {
        #expect(SearchAdmission.isSearch(Request(method: .get, target: target)) == isSearch)
        #expect(!SearchAdmission.isSearch(Request(method: .post, target: target)))
    }
}

/// A status set by one thread and read by another.
private final class StatusBox: @unchecked Sendable {
    private let lock = NSLock()
    private var status: Int?
    func set(_ value: Int) { lock.withLock { status = value } }
    func get() -> Int? { lock.withLock { status } }
}
