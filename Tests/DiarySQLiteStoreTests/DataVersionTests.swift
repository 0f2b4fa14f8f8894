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
