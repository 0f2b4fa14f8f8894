import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Synchronization
import Testing

/// `If-Match`: a precondition on the entry as stored, checked in the write's own transaction.
@Suite struct PreconditionTests {
    @Test(arguments: StoreFactory.all) func aFailingPreconditionChangesNothing(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "", tags: ["x"])
            let diary = try #require(try store.diary(id: entry.diaryID))
            clock.advance(seconds: 60)
            let version = try store.dataVersion()

            expectStoreError(.preconditionFailed, .entry(entry.id)) {
                try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "b", tags: []), precondition: { _ in false })
            }
            expectStoreError(.preconditionFailed, .entry(entry.id)) {
                try store.deleteEntry(id: entry.id, userID: alice.id, precondition: { _ in false })
            }
            #expect(try store.entry(id: entry.id) == entry)
            #expect(try store.diary(id: diary.id) == diary)
            #expect(try store.tags() == [TagCount(name: "x", count: 1)])
            #expect(try store.dataVersion() == version, "a refused write commits nothing")
        }
    }

    /// The precondition sees the entry as stored now, not as the caller last read it.
    @Test(arguments: StoreFactory.all) func thePreconditionSeesTheEntryAsStored(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "", visibility: .private)
            clock.advance(seconds: 60)
            let stored = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(body: "moved on"))
            let seen = Mutex<[Entry]>([])
            let updated = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "b"), precondition: { current in
                seen.withLock { $0.append(current) }
                return current == stored
            })
            #expect(seen.withLock { $0 } == [stored])
            #expect(updated.title == "b" && updated.body == "moved on")
            expectStoreError(.preconditionFailed, .entry(entry.id)) {
                try store.deleteEntry(id: entry.id, userID: alice.id, precondition: { $0 == stored })
            }
            try store.deleteEntry(id: entry.id, userID: alice.id, precondition: { $0 == updated })
            #expect(try store.entry(id: entry.id, viewerID: alice.id) == nil)
        }
    }

    /// Who may write is settled first: another user learns nothing from a precondition, which
    /// is never even asked.
    @Test(arguments: StoreFactory.all) func ownershipIsCheckedBeforeThePrecondition(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let shown = try store.createEntry(userID: alice.id, diaryID: nil, title: "public", body: "")
            let hidden = try store.createEntry(userID: alice.id, diaryID: nil, title: "private", body: "", visibility: .private)
            let asked = Mutex(0)
            let precondition: EntryPrecondition = { _ in
                asked.withLock { $0 += 1 }
                return false
            }
            expectStoreError(.forbidden, .entry(shown.id)) {
                try store.updateEntry(id: shown.id, userID: bob.id, changes: EntryChanges(title: "x"), precondition: precondition)
            }
            expectStoreError(.forbidden, .entry(shown.id)) { try store.deleteEntry(id: shown.id, userID: bob.id, precondition: precondition) }
            expectStoreError(.notFound, .entry(hidden.id)) {
                try store.updateEntry(id: hidden.id, userID: bob.id, changes: EntryChanges(title: "x"), precondition: precondition)
            }
            expectStoreError(.notFound, .entry(hidden.id)) { try store.deleteEntry(id: hidden.id, userID: bob.id, precondition: precondition) }
            expectStoreError(.notFound, .entry(999)) { try store.deleteEntry(id: 999, userID: alice.id, precondition: precondition) }
            #expect(asked.withLock { $0 } == 0)
        }
    }

    /// The same race, made certain to overlap: each precondition, once asked, waits (up to
    /// half a second) for another writer's precondition to be asked too. A store that checks
    /// inside the write's lock lets no second one in meanwhile, so every wait times out and one
    /// writer wins; a store that checks before locking asks several at once, and they all win.
    @Test(arguments: StoreFactory.all) func aSlowPreconditionStillLetsOneWriterWin(_ factory: StoreFactory) throws {
        try withStoreUnderTest(factory) { subject in
            let stores = [subject.store, try subject.openAnother()]
            let alice = try stores[0].createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try stores[0].createEntry(userID: alice.id, diaryID: nil, title: "v0", body: "")
            let asked = Arrivals()
            let outcomes = Mutex<[StoreError.Kind?]>([])
            // Threads of their own: concurrentPerform may run its iterations one after another
            // when the pool's threads are taken (by the parallel test runner).
            onThreads(4) { index in
                do throws(StoreError) {
                    _ = try stores[index % 2].updateEntry(
                        id: entry.id, userID: alice.id, changes: EntryChanges(title: "v\(index + 1)"), precondition: { current in
                            asked.arriveAndWaitForAnother(timeout: 0.5)
                            return current.title == "v0"
                        }
                    )
                    outcomes.withLock { $0.append(nil) }
                } catch {
                    outcomes.withLock { $0.append(error.kind) }
                }
            }
            let kinds = outcomes.withLock { $0 }
            #expect(kinds.filter { $0 == nil }.count == 1, "\(kinds)")
            #expect(kinds.filter { $0 == .preconditionFailed }.count == 3, "\(kinds)")
        }
    }

    /// Writers that all read the same version and send it as `If-Match`: one wins, the others
    /// are refused. A check outside the write's transaction would let several through.
    @Test(arguments: StoreFactory.all) func oneOfConcurrentConditionalUpdatesWins(_ factory: StoreFactory) throws {
        try withStoreUnderTest(factory) { subject in
            let stores = [subject.store, try subject.openAnother()]
            let alice = try stores[0].createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try stores[0].createEntry(userID: alice.id, diaryID: nil, title: "v0", body: "")
            let outcomes = Mutex<[StoreError.Kind?]>([])
            onThreads(8) { index in
                do throws(StoreError) {
                    _ = try stores[index % 2].updateEntry(
                        id: entry.id, userID: alice.id, changes: EntryChanges(title: "v\(index + 1)"), precondition: { $0.title == "v0" }
                    )
                    outcomes.withLock { $0.append(nil) }
                } catch {
                    outcomes.withLock { $0.append(error.kind) }
                }
            }
            let kinds = outcomes.withLock { $0 }
            #expect(kinds.filter { $0 == nil }.count == 1, "\(kinds)")
            #expect(kinds.filter { $0 == .preconditionFailed }.count == 7, "\(kinds)")
            #expect(try stores[0].entry(id: entry.id)?.title != "v0")
        }
    }
}

/// Callers that each wait, up to a deadline, for one more caller to arrive after them.
final class Arrivals: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0

    /// Counts this arrival, then waits until another comes or `timeout` passes; true when one came.
    @discardableResult
    func arriveAndWaitForAnother(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        count += 1
        let mine = count
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while count == mine {
            if !condition.wait(until: deadline) { return count != mine }
        }
        return true
    }
}

/// Runs `body(0)`, `body(1)`, … each on a thread of its own, all at once, and returns when all have.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
