import DiaryAPI
import DiaryStore
@testable import DiarySQLiteStore
import Foundation
import GRDB
import StoreTestSupport
import Testing

/// `queryTimeout`: a read past it is stopped by SQLite (`ReadDeadline`) and fails as
/// `.timedOut`; the reader connection it ran on serves the next read as before.
@Suite struct QueryTimeoutTests {
    /// A statement that would never end on its own (a recursive CTE without a bound), so only
    /// the deadline can end it.
    static let endless = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"

    @Test func anEndlessReadIsStoppedAtTheTimeoutAndTheConnectionServesTheNextRead() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteDiaryStore(path: directory.databasePath, queryTimeout: .milliseconds(50))
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let began = ContinuousClock.now
            let error = expectStoreError(.timedOut) {
                try store.read(.operation("endless")) { db in try Int.fetchOne(db, sql: Self.endless) }
            }
            #expect(error?.description.contains("query timeout") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - began < .seconds(5))
            // One thread reads one after another: the same reader connection, out of its
            // transaction, with no deadline left over.
            for _ in 0..<3 {
                #expect(try store.read(.operation("count")) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM users") } == 1)
            }
            #expect(try store.entries(EntryQuery(page: newestFirstPage, viewerID: alice.id)).page.total == 0)
            #expect(try store.integrityCheck() == "ok")
            try store.close()
        }
    }

    /// A 1 ns budget stops any statement that runs more than `ReadDeadline.instructionsPerCheck`
    /// instructions, whatever the machine's speed: a search over a thousand entries is stopped,
    /// a lookup by id is not, and neither an export's batch nor the integrity check ever is.
    @Test func aSearchPastTheBudgetIsStoppedWhileAnEntryByIdIsRead() throws {
        try withTemporaryDirectory { directory in
            let path = directory.databasePath
            do {
                let seeding = try SQLiteDiaryStore(path: path)
                _ = try seeding.createUser(name: "alice", tokenHash: newTokenHash())
                let start = Date(timeIntervalSince1970: 1_700_000_000)
                try seeding.insertEntries((0..<1000).map { n in
                    SeedEntry(diaryID: 1, title: "day \(n)", body: "coffee by the river, day \(n)", created: start + Double(n) * 60)
                })
                try seeding.close()
            }
            let store = try SQLiteDiaryStore(path: path, queryTimeout: .nanoseconds(1))
            expectStoreError(.timedOut) {
                try store.entries(EntryQuery(page: newestFirstPage, filter: EntryFilter(query: "river")))
            }
            #expect(try store.entry(id: 1, viewerID: nil)?.title == "day 0")
            #expect(try store.entries(afterID: 200, limit: 500, ownerID: nil).map(\.id) == Array(201...700))
            #expect(try store.integrityCheck() == "ok")
            try store.close()
        }
    }
}
