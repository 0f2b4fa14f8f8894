import DiaryAPI
import DiaryStore
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import GRDB
import Testing

@Suite struct ConcurrencyTests {
    /// A write lock held past the opener's wait is said as such (`isLockHeld`), so that the CLI
    /// can tell a busy replica (wait, try again) from a damaged one (reset it); a longer wait
    /// (`lockWait`) outlasts the holder.
    @Test func aLockHeldPastTheWaitIsToldApart() throws {
        try withTemporaryDirectory { directory in
            let holder = try SQLiteDiaryStore(path: directory.databasePath)
            defer { try? holder.close() }
            try holder.writer.write { _ in
                // Opening takes the write lock (migrations): it cannot while this transaction holds it.
                do {
                    let store = try SQLiteDiaryStore(path: directory.databasePath, lockWait: 0.1)
                    try? store.close()
                    Issue.record("opened while another connection held the write lock")
                } catch let error as StoreError {
                    #expect(error.isLockHeld, "\(error)")
                }
            }
            let store = try SQLiteDiaryStore(path: directory.databasePath, lockWait: 0.1)
            defer { try? store.close() }
            #expect(try store.pragma("busy_timeout", on: .writer) == "100")
            // Any other failure is not a held lock.
            #expect(!StoreError(.unavailable, .operation("x"), detail: "the disk is full").isLockHeld)
        }
    }

    /// 8 threads × 50 entries through two stores on the same file, as two server processes
    /// would: one store's writes queue in GRDB, the two stores' wait on each other's lock
    /// through the busy timeout. Not one may fail.
    @Test func concurrentWritersAllSucceed() throws {
        try withTemporaryDirectory { directory in
            let stores = [
                try SQLiteDiaryStore(path: directory.databasePath),
                try SQLiteDiaryStore(path: directory.databasePath),
            ]
            let threads = 8, perThread = 50
            var users: [User] = []
            for i in 0..<threads {
                users.append(try stores[0].createUser(name: "writer\(i)", tokenHash: newTokenHash()))
            }

            let results = Results()
            let group = DispatchGroup()
            for i in 0..<threads {
                group.enter()
                let store = stores[i % 2], user = users[i]
                let thread = Thread {
                    defer { group.leave() }
                    for n in 0..<perThread {
                        do throws(StoreError) {
                            let entry = try store.createEntry(userID: user.id, diaryID: nil, title: "\(i)-\(n)", body: "")
                            results.add(entry.id)
                            // Reads run between the writes, on the other store too.
                            _ = try stores[(i + 1) % 2].entries(diaryID: nil, page: PageRequest(page: 1, perPage: 5))
                        } catch {
                            results.fail(error)
                        }
                    }
                }
                thread.start()
            }
            #expect(group.wait(timeout: .now() + 120) == .success)

            #expect(results.errors.count == 0, "first errors: \(results.errors.prefix(3))")
            #expect(results.ids.count == threads * perThread)
            #expect(Set(results.ids).count == threads * perThread)
            let all = try stores[1].entries(diaryID: nil, page: PageRequest(page: 1, perPage: 1))
            #expect(all.total == threads * perThread)
            for diary in try stores[0].diaries() {
                #expect(diary.entryCount == perThread)
            }
            #expect(try stores[0].integrityCheck() == "ok")
            for store in stores { try store.close() }
        }
    }
}

private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var _ids: [Int64] = []
    private var _errors: [StoreError] = []

    func add(_ id: Int64) { lock.withLock { _ids.append(id) } }
    func fail(_ error: StoreError) { lock.withLock { _errors.append(error) } }
    var ids: [Int64] { lock.withLock { _ids } }
    var errors: [StoreError] { lock.withLock { _errors } }
}
