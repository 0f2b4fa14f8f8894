import DiaryAPI
import DiaryStore
import StoreTestSupport
@testable import DiarySQLiteStore
import StoreKernel
import Foundation
import Testing

/// The store's performance paths behave as the plain ones: the bulk insert behind
/// `diary-server seed`, group commit, and the allocation-free reading of stored dates.
@Suite struct FastPathTests {
    @Test func bulkEntriesReadBackAsWrittenWithCountsAndDiaryTimes() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try store.diaries()[0]
            let second = try store.createDiary(ownerID: alice.id, title: "Second")
            let start = RFC3339.date(from: "2030-01-01T00:00:00Z")!
            let seeded = (0..<25).map { (index: Int) -> SeedEntry in
                let tags: [String] = index % 3 == 0 ? ["kyoto", "photo"] : []
                return SeedEntry(diaryID: index % 2 == 0 ? first.id : second.id, title: "Entry \(index)",
                                 body: "Body \"\(index)\"\n今日", created: start + TimeInterval(index * 60) + 0.75, tags: tags)
            }
            // A batch size that does not divide the count: the last batch is a short one.
            #expect(try store.insertEntries(seeded, batchSize: 10) == 25)

            let page = try store.entries(diaryID: nil, page: newestFirstPage)
            #expect(page.total == 25)
            #expect(page.entries.map(\.title) == seeded.reversed().map(\.title))
            #expect(page.entries.map(\.tags) == seeded.reversed().map(\.tags))
            let newest = try #require(page.entries.first)
            #expect(newest.author == "alice")
            #expect(newest.body == seeded[24].body)
            #expect(newest.created == start + 24 * 60)  // whole seconds, as the store keeps them
            #expect(newest.updated == newest.created)

            let diaries = try store.diaries()
            #expect(diaries.map(\.entryCount) == [13, 12])
            #expect(diaries[0].updated == start + 24 * 60)
            #expect(diaries[1].updated == start + 23 * 60)
        }
    }

    @Test func anUnknownDiaryRollsBackItsBatchOnly() throws {
        try withStore { store, _ in
            _ = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try store.diaries()[0]
            let now = Date(timeIntervalSince1970: 1_900_000_000)
            let entries = ["a", "b", "c", "bad"].map { title in
                SeedEntry(diaryID: title == "bad" ? 999 : diary.id, title: title, body: "", created: now)
            }
            // Batches [a, b] and [c, bad]: the first is written, the second rolled back whole.
            expectStoreError(.unavailable) { try store.insertEntries(entries, batchSize: 2) }
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).entries.map(\.title) == ["b", "a"])
            #expect(try store.diaries()[0].entryCount == 2)
        }
    }

    /// A write that fails in a group is undone alone; the others of its group commit together.
    @Test func groupCommitUndoesAFailingWriteAlone() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let bobsDiary = try store.diaries().first { $0.owner == "bob" }!
            let groupsBefore = store.groupCommit.groupCount
            let leaderStarted = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let outcomes = Outcomes()
            let done = DispatchGroup()
            // The leader holds the writer until the others queued behind it: they form one group.
            Thread.detachNewThread { [done] in
                done.enter()
                defer { done.leave() }
                outcomes.record("leader") { () throws(StoreError) in
                    try store.write(.operation("leader")) { db in
                        leaderStarted.signal()
                        release.wait()
                        try db.execute(sql: "UPDATE users SET name = name WHERE user_id = ?", arguments: [alice.id])
                    }
                }
            }
            leaderStarted.wait()
            for index in 0..<5 {
                done.enter()
                Thread.detachNewThread { [done] in
                    defer { done.leave() }
                    outcomes.record("\(index)") { () throws(StoreError) in
                        // Entry 2 goes to bob's diary as alice: forbidden.
                        _ = try store.createEntry(userID: alice.id, diaryID: index == 2 ? bobsDiary.id : nil, title: "t\(index)", body: "")
                    }
                }
            }
            // The five writers queue behind the leader: a poll, with a deadline that fails the test.
            let deadline = Date() + 30
            while store.groupCommit.queuedCount < 5 && Date() < deadline { usleep(1_000) }
            #expect(store.groupCommit.queuedCount == 5, "the writers did not queue within 30 s")
            release.signal()
            #expect(done.wait(timeout: .now() + 30) == .success)

            #expect(store.groupCommit.groupCount - groupsBefore == 2)
            #expect(outcomes.failures == ["2": .forbidden])
            let titles = try store.entries(diaryID: nil, page: newestFirstPage).entries.map(\.title)
            #expect(titles.sorted() == ["t0", "t1", "t3", "t4"])
            #expect(try store.diaries().first { $0.owner == bob.name }!.entryCount == 0)
        }
    }

    /// The stored form read without allocating gives the same instant as RFC 3339 parsing, on
    /// every day of four years around a leap day and a century, and at the ends of the range.
    @Test func storedDatesReadAsRFC3339ReadsThem() throws {
        var texts = ["0000-01-01T00:00:00Z", "0000-02-29T12:00:00Z", "1600-02-29T23:59:59Z", "1900-03-01T00:00:00Z",
                     "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "2038-01-19T03:14:08Z", "9999-12-31T23:59:59Z"]
        let start = RFC3339.date(from: "1998-01-01T00:00:00Z")!
        for day in 0..<(4 * 366) {
            texts.append(RFC3339.string(from: start + TimeInterval(day * 86_400 + (day * 7_919) % 86_400)))
        }
        for text in texts {
            #expect(StoredDate.parse(text) == RFC3339.date(from: text), "\(text)")
            #expect(StoredDate.parse(text) != nil, "\(text)")
        }
        for text in ["2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-13-01T00:00:00Z",
                     "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z",
                     "2016-12-31T23:59:60Z", "2024-01-01T00:00:00+00:00", "2024-01-01T00:00:00.5Z", "2024-01-01 00:00:00Z",
                     "2024-01-01T00:00:0xZ", "", "２０２４-01-01T00:00:00Z"] {
            #expect(StoredDate.parse(text) == nil, "\(text)")
        }
        // What the fast path leaves out still reads as before.
        #expect(try SQLiteDiaryStore.date("2016-06-15T12:00:60Z", column: "c") == RFC3339.date(from: "2016-06-15T12:01:00Z"))
        #expect(throws: CorruptValue.self) { try SQLiteDiaryStore.date("2023-02-29T00:00:00Z", column: "c") }
    }
}

/// What each thread of a test got: nothing, or the kind of store error it threw.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [String: StoreError.Kind?] = [:]

    func record(_ name: String, _ body: () throws(StoreError) -> Void) {
        do {
            try body()
            lock.withLock { results[name] = .some(nil) }
        } catch {
            lock.withLock { results[name] = .some(error.kind) }
        }
    }

    var count: Int { lock.withLock { results.count } }
    var failures: [String: StoreError.Kind] { lock.withLock { results.compactMapValues { $0 } } }
}
