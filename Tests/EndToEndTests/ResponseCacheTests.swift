import DiaryAPI
import Foundation
import Testing

/// The response cache over real processes: its data version is the database's, so a server
/// never serves a kept answer from before a write another process acknowledged.
@Suite(.serialized) struct ResponseCacheEndToEndTests {
    /// Three servers on one database (an SQLite file or, on PostgreSQL, one database), each
    /// writing in turn. Before each write every other server reads the list, the entry, the
    /// home page and the feed twice, so that its answers are kept; once the write is answered
    /// 2xx, each of them must answer every one of those with the write in it. The writes
    /// alternate between a new entry and a change of the newest one's title, so that the
    /// entry's own answer, kept before, is one that goes stale.
    @Test func aWriteThroughOneServerIsSeenAtOnceByEveryOtherOnTheSameDatabase() throws {
        let first = try ServerProcess()
        let servers = [first, try ServerProcess(sharingDatabaseOf: first), try ServerProcess(sharingDatabaseOf: first)]
        let token = try first.addUser("alice")
        let auth = ("Authorization", "Bearer \(token)"), json = ("Content-Type", "application/json")
        var newestID: Int64?
        var entryCount = 0
        for round in 1...12 {
            let writer = servers[round % servers.count]
            let readers = servers.filter { $0 !== writer }
            // The title cannot be found inside another round's ("round-1-done" is not in "round-11-done").
            let title = "round-\(round)-done"
            let targets = ["/api/entries?per_page=1", "/", "/feed.atom"] + (newestID.map { ["/api/entries/\($0)"] } ?? [])
            for reader in readers {
                for target in targets {
                    // Twice, so that the reader's answer is kept before the write.
                    #expect(try reader.raw("GET", target).status == 200, "\(target) through \(reader.url)")
                    #expect(try reader.raw("GET", target).status == 200, "\(target) through \(reader.url)")
                }
            }
            let written: RawResponse
            if let id = newestID, round.isMultiple(of: 2) {
                written = try writer.raw("PATCH", "/api/entries/\(id)", headers: [auth, json], body: #"{"title":"\#(title)"}"#)
                #expect(written.status == 200, "PATCH through \(writer.url): \(written.text)")
            } else {
                written = try writer.raw("POST", "/api/entries", headers: [auth, json], body: #"{"title":"\#(title)","body":""}"#)
                #expect(written.status == 201, "POST through \(writer.url): \(written.text)")
                entryCount += 1
            }
            let entry = try JSONDecoder.diary.decode(Entry.self, from: Data(written.body))
            newestID = entry.id
            for reader in readers {
                let seen = "written through \(writer.url), read through \(reader.url) in round \(round)"
                let page = try JSONDecoder.diary.decode(EntryPage.self, from: Data(try reader.raw("GET", "/api/entries?per_page=1").body))
                #expect(page.total == entryCount && page.entries.first?.title == title, "the list \(seen)")
                let one = try reader.raw("GET", "/api/entries/\(entry.id)")
                #expect(one.status == 200 && (try? JSONDecoder.diary.decode(Entry.self, from: Data(one.body)))?.title == title, "the entry \(seen)")
                #expect(try reader.raw("GET", "/").text.contains(title), "the home page \(seen)")
                #expect(try reader.raw("GET", "/feed.atom").text.contains(title), "the feed \(seen)")
            }
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
