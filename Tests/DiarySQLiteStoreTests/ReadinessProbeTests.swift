import DiaryStore
import Foundation
import GRDB
import StoreTestSupport
@testable import DiarySQLiteStore
import Testing

/// `checkWritable`, the readiness answer on SQLite: ready while the write lock can be had,
/// not ready while another connection (another process, or a stuck writer) holds it past the
/// bound; and the probe itself writes nothing, so the data version does not move.
@Suite struct ReadinessProbeTests {
    @Test func readyUnlessTheWriteLockIsHeldPastTheBound() throws {
        try withStore { store, _ in
            try store.checkWritable(within: .milliseconds(200))
            let version = try store.dataVersion()
            // Another connection holds the write lock until told to let go, as a stuck writer would.
            let other = try DatabaseQueue(path: store.path)
            let held = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let holder = Thread {
                try? other.inTransaction(.immediate) { _ in
                    held.signal()
                    release.wait()
                    return .rollback
                }
            }
            holder.start()
            held.wait()
            let start = ContinuousClock.now
            let error = expectStoreError(.unavailable) { try store.checkWritable(within: .milliseconds(200)) }
            #expect(error?.detail.contains("write lock") == true, "\(String(describing: error))")
            #expect(ContinuousClock.now - start >= .milliseconds(200))
            release.signal()
            try other.write { _ in }  // Waits for the holder's rollback: the lock is free again.
            try other.close()
            try store.checkWritable(within: .milliseconds(200))
            #expect(try store.dataVersion() == version)
        }
    }

    @Test func statisticsCountUsersEntriesAndGroupCommits() throws {
        try withStore { store, _ in
            let user = try store.createUser(name: "alice", tokenHash: newTokenHash())
            _ = try store.createEntry(userID: user.id, diaryID: nil, title: "t", body: "b")
            let statistics = try store.statistics()
            #expect(statistics.users == 1)
            #expect(statistics.entries == 1)
            #expect(statistics.writesWaiting == 0)
            let commits = try #require(statistics.groupCommits)
            #expect(commits >= 2)
            #expect(statistics.groupedWrites == commits)
            #expect(statistics.connectionsInUse == nil)
        }
    }
}
