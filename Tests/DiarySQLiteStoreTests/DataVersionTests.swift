import DiaryAPI
import DiarySQLiteStore
import DiaryStore
import StoreTestSupport
import Foundation
import Synchronization
import Testing

/// `dataVersion()` vouches for cached reads: it must move after every commit, whoever made it,
/// and stay put while nothing is written, or the cache would never hit.
@Suite struct DataVersionTests {
    @Test func movesAfterEveryCommitAndOnlyThen() throws {
        try withStore { store, _ in
            let user = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let start = try store.dataVersion()
            _ = try store.entries(EntryQuery(page: PageRequest(page: 1, perPage: 20)))
            #expect(try store.dataVersion() == start, "a read changes nothing")
            #expect(try store.dataVersion() == start)

            _ = try store.createEntry(userID: user.id, diaryID: nil, title: "a", body: "", tags: [], created: nil, visibility: nil, draft: false, idempotency: nil)
            let afterOwnWrite = try store.dataVersion()
            #expect(afterOwnWrite > start)
            #expect(try store.dataVersion() == afterOwnWrite)

            // Another store on the file has connections of its own, as another process would.
            let other = try SQLiteDiaryStore(path: store.path)
            defer { try? other.close() }
            _ = try other.createEntry(userID: user.id, diaryID: nil, title: "b", body: "", tags: [], created: nil, visibility: nil, draft: false, idempotency: nil)
            #expect(try store.dataVersion() > afterOwnWrite)
        }
    }

    /// Another process's commit moves it at once, and its reads do not: the WAL-index header
    /// the store compares lives in the `-shm` file every process maps.
    @Test func anotherProcessCommitMovesItAndItsReadsDoNot() throws {
        try withStore { store, _ in
            let user = try store.createUser(name: "alice", tokenHash: newTokenHash())
            _ = try store.createEntry(userID: user.id, diaryID: nil, title: "a", body: "", tags: [], created: nil, visibility: nil, draft: false, idempotency: nil)
            let start = try store.dataVersion()
            try runPython("c.execute('SELECT count(*) FROM entries').fetchall()", on: store.path)
            #expect(try store.dataVersion() == start, "another process's read")
            // A table without triggers: those of the entries call the store's own tokenizer.
            try runPython("c.execute(\"INSERT INTO settings VALUES ('a', x'01')\"); c.commit()", on: store.path)
            let afterCommit = try store.dataVersion()
            #expect(afterCommit > start, "another process's commit")
            try runPython("c.execute(\"INSERT INTO settings VALUES ('b', x'01')\"); c.rollback()", on: store.path)
            #expect(try store.dataVersion() == afterCommit, "another process's rollback")
        }
    }

    /// Runs `statement` in a python3 process with `c`, an sqlite3 connection to `path`.
    private func runPython(_ statement: String, on path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); \(statement); c.close()", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3: \(statement)")
    }

    /// Many threads asking at once ask different read connections; each still sees a commit.
    @Test func concurrentCallersAllSeeACommit() throws {
        try withStore { store, _ in
            let user = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let before = try store.dataVersion()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in _ = try? store.dataVersion() }
            _ = try store.createEntry(userID: user.id, diaryID: nil, title: "a", body: "", tags: [], created: nil, visibility: nil, draft: false, idempotency: nil)
            let seen = Mutex<[Result<Int64, StoreError>]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let version = Result { () throws(StoreError) in try store.dataVersion() }
                seen.withLock { $0.append(version) }
            }
            let versions = try seen.withLock { try $0.map { try $0.get() } }
            #expect(versions.count == 8)
            #expect(versions.allSatisfy { $0 > before })
        }
    }
}
