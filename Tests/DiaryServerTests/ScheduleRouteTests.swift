import DiaryAPI
import Foundation
import DiaryServer
import HTTPCore
import HTTPTypes
import Testing

/// Scheduled posts through the router and its response cache, on the real clock: absent from
/// every read, byte for byte, while the clock says it is before the time; present in every read
/// within a second after it, with no write.
@Suite struct ScheduleRouteTests {
    /// Every read an anonymous reader or another user makes that a scheduled entry would show in.
    static func reads(diaryID: Int64, entryID: Int64) -> [String] {
        [
            "/api/entries", "/api/entries?q=harvest", "/api/entries?tag=moon", "/api/diaries", "/api/diaries/\(diaryID)",
            "/api/diaries/\(diaryID)/entries", "/api/tags", "/api/changes", "/api/export", "/api/entries/\(entryID)",
            "/", "/diaries/\(diaryID)", "/entries/\(entryID)", "/tags/moon", "/search?q=harvest", "/feed.atom",
            "/diaries/\(diaryID)/feed.atom",
        ]
    }

    /// What a read shows: status, body and the headers that could tell (ETag, Last-Modified, counts).
    /// (A streamed answer, the export's or the change feed's, read to its end.)
    static func seen(_ response: Response) -> String {
        let fields = ["ETag", "Last-Modified", "X-Total-Count", "Link"].map { response.headers[HTTPField.Name($0)!] ?? "-" }
        let body = (try? response.wholeBody()).map { String(decoding: $0, as: UTF8.self) } ?? "unreadable"
        return "\(response.status.code) \(fields) \(body)"
    }

    @Test func aPostScheduledTwoSecondsAheadAppearsAtItsTimeAndNotBefore() throws {
        // No rate limit on searches: the loop below reads them many times a second.
        let t = try TestApplication(configuration: .init(searchLimits: SearchLimits(ratePerSecond: 0)))
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let first = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"first","body":"plain","tags":["sun"]}"#).decoded(Entry.self)
        // Whole seconds: two to three seconds from now.
        let due = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 3)
        let reads = Self.reads(diaryID: first.diaryID, entryID: first.id + 1)
        let readers: [String?] = [nil, bob]
        let before = readers.map { reader in reads.map { Self.seen(t.request("GET", $0, token: reader)) } }

        let posted = t.request("POST", "/api/entries", token: alice, json: """
            {"title":"harvest moon","body":"harvest words","tags":["moon"],"created":"\(RFC3339.string(from: due))"}
            """)
        #expect(posted.status == 201)
        #expect(posted.text.contains(#""scheduled":true"#))
        let scheduled = try posted.decoded(Entry.self)
        #expect(scheduled.id == first.id + 1 && scheduled.scheduled && scheduled.created == due)
        #expect(t.request("GET", "/api/entries/\(scheduled.id)", token: alice).text.contains(#""scheduled":true"#))

        // Before its time, every read is what it was, through the cache (read twice).
        var checkedBefore = 0
        while Date() < due - 0.3 {
            for (index, reader) in readers.enumerated() {
                for (target, expected) in zip(reads, before[index]) {
                    let answer = t.request("GET", target, token: reader)
                    if Date() < due {
                        #expect(Self.seen(answer) == expected, "\(target) before its time")
                        checkedBefore += 1
                    }
                }
            }
        }
        #expect(checkedBefore > reads.count * 2)

        // After it: every read shows it within a second, with no write: anonymously (through
        // the cache) where anyone may read, else as bob (the export and the change feed).
        var missing = Set(reads.indices)
        let deadline = due + 1
        while !missing.isEmpty, Date() < deadline + 5 {
            for index in missing.sorted() {
                let reader = before[0][index].hasPrefix("200 ") ? 0 : 1
                let answer = t.request("GET", reads[index], token: readers[reader])
                let now = Date()
                #expect(now >= due || Self.seen(answer) == before[reader][index], "\(reads[index]) early")
                if Self.seen(answer) != before[reader][index] {
                    #expect(now <= deadline, "\(reads[index]) late: \(now.timeIntervalSince(due)) s after")
                    missing.remove(index)
                }
            }
        }
        #expect(missing.isEmpty, "never shown: \(missing.map { reads[$0] })")
        let published = try t.request("GET", "/api/entries/\(scheduled.id)").decoded(Entry.self)
        #expect(!published.scheduled && published.updated == due)
        // Others' Last-Modified is the time it appeared, on the list as on the entry.
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for target in ["/api/entries/\(scheduled.id)", "/api/entries"] {
            #expect(t.request("GET", target).headers[.lastModified] == format.string(from: due), "\(target)")
        }
    }
}
