import DiaryAPI
import Foundation
import Testing

/// The response cache over real processes: its data version is the database file's, so a
/// server never serves a kept answer from before a write another process acknowledged.
@Suite(.serialized) struct ResponseCacheEndToEndTests {
    @Test func aWriteThroughOneServerIsSeenAtOnceByAnotherOnTheSameFile() throws {
        let first = try ServerProcess()
        let second = try ServerProcess(sharingDatabaseOf: first)
        let token = try first.addUser("alice")
        let auth = ("Authorization", "Bearer \(token)")
        for count in 1...12 {
            let (writer, reader) = count.isMultiple(of: 2) ? (first, second) : (second, first)
            // Twice, so that the reader's answer is kept before the write.
            _ = try reader.raw("GET", "/api/entries?per_page=1")
            _ = try reader.raw("GET", "/api/entries?per_page=1")
            let created = try writer.raw(
                "POST", "/api/entries", headers: [auth, ("Content-Type", "application/json")], body: #"{"title":"n\#(count)","body":""}"#
            )
            #expect(created.status == 201)
            let page = try JSONDecoder.diary.decode(EntryPage.self, from: Data(try reader.raw("GET", "/api/entries?per_page=1").body))
            #expect(page.total == count && page.entries.first?.title == "n\(count)", "read through the other server")
        }
    }

    @Test func theCacheCanBeTurnedOffAndAnswersStayTheSame() throws {
        let cached = try ServerProcess()
        let uncached = try ServerProcess(sharingDatabaseOf: cached)
        uncached.stop()
        try uncached.start(extraArguments: ["--response-cache", "0"])
        let token = try cached.addUser("alice")
        _ = try cached.diary(["add", "京都", "--body", "\"quoted\" \\ and\ttab"], token: token)
        for target in ["/api/entries", "/api/entries/1", "/api/diaries", "/api/diaries/1", "/api/tags", "/api/entries?q=%E4%BA%AC%E9%83%BD"] {
            let kept = try cached.raw("GET", target)
            let again = try cached.raw("GET", target)
            let fresh = try uncached.raw("GET", target)
            #expect(again.status == 200 && again.body == kept.body && again.body == fresh.body, "\(target)")
            #expect(again.header("ETag") == fresh.header("ETag") && again.header("Last-Modified") == fresh.header("Last-Modified"))
        }
        let refused = try run(Binaries.server, ["serve", "--response-cache", "-1"])
        #expect(refused.status != 0 && refused.stderr.contains("--response-cache"))
    }
}
