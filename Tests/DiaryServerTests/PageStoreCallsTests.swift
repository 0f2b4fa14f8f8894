import DiaryAPI
import DiaryServer
import Foundation
import Testing

/// A list page reads what it shows in a number of store calls that does not grow with the
/// number of diaries on it: the diary titles come from one read of every diary.
@Suite struct PageStoreCallsTests {
    /// Store calls of each GET of `targets` on a fresh application over `t`'s store, which keeps
    /// no answers, after one warming request (the cursor secret is read once per application).
    private static func calls(_ t: TestApplication, _ targets: [String]) throws -> [[String: Int]] {
        let store = CountingStore(t.store)
        let app = DiaryApplication(store: store, configuration: .init(responseCacheBytes: 0))
        _ = app.respond(to: .init(method: .get, target: "/?cursor=warm"))
        return try targets.map { target in
            store.reset()
            let response = app.respond(to: .init(method: .get, target: target))
            try #require(response.status == 200, "\(target): \(response.status)")
            return store.calls
        }
    }

    /// Entries by `authors` new users, each in their own first diary, all in the same second.
    private static func addEntries(_ t: TestApplication, authors: Int, each: Int) throws {
        for author in 0..<authors {
            let token = try t.addUser("author\(author)-\(UUID().uuidString.prefix(8))")
            for index in 0..<each {
                try PagesTests.post(t, token, title: "entry \(index) by \(author)", created: "2026-01-02T03:04:05Z")
            }
        }
    }

    @Test func theHomePageReadsInAFixedNumberOfStoreCalls() throws {
        let t = try TestApplication()
        try Self.addEntries(t, authors: 2, each: 15)
        let few = try Self.calls(t, ["/"])
        // The data version, read before any request to publish what is due (`ScheduledPublication`).
        #expect(few == [["dataVersion": 1, "lastModified": 1, "entries": 1, "diaries": 1]])

        // Twenty entries from twenty diaries cost what twenty from two did.
        try Self.addEntries(t, authors: 20, each: 1)
        let many = try Self.calls(t, ["/"])
        #expect(many == few)
    }

    /// The link to the older page on the page at `target`, as a request target.
    private static func olderLink(_ t: TestApplication, from target: String) throws -> String {
        let older = try #require(t.request("GET", target).text.firstMatch(of: /id="older-entries" rel="next" href="([^"]+)"/))
        return String(older.1).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Older pages, with 130 entries in one second: counting the entries above a page's start
    /// once paged through every entry of its second, 100 at a time.
    @Test func anOlderPageReadsInAFixedNumberOfStoreCalls() throws {
        let t = try TestApplication()
        try Self.addEntries(t, authors: 2, each: 65)
        let second = try Self.olderLink(t, from: "/")
        let third = try Self.olderLink(t, from: second)
        let calls = try Self.calls(t, [second, third])
        // The page, the count of entries at or above its start within its second (its "newer"
        // link), the entry that starts the newer page, and the titles. For the second page the
        // second holds too few: the newest entry, of that same second, says no later span holds
        // more, and its newer page is the first. And the data version (`ScheduledPublication`).
        #expect(calls == [
            ["dataVersion": 1, "lastModified": 1, "entries": 2, "countEntries": 1, "diaries": 1],
            ["dataVersion": 1, "lastModified": 1, "entries": 2, "countEntries": 1, "diaries": 1],
        ])

        try Self.addEntries(t, authors: 20, each: 1)
        let again = try Self.calls(t, [try Self.olderLink(t, from: try Self.olderLink(t, from: "/"))])
        #expect(again == [calls[1]])
    }
}
