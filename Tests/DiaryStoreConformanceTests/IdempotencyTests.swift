import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Synchronization
import Testing

/// `Idempotency-Key`: a retried POST answers what the first one created, checked and recorded
/// in the transaction that creates it.
@Suite struct IdempotencyTests {
    private let key = IdempotencyKey(key: "k-1", fingerprint: "POST /api/entries {title: a}")

    private func create(_ store: any DiaryStore, _ userID: Int64, _ key: IdempotencyKey?, diaryID: Int64? = nil, title: String = "a") throws(StoreError) -> Created<Entry> {
        try store.createEntry(userID: userID, diaryID: diaryID, title: title, body: "", tags: [], created: nil, visibility: nil, draft: false, idempotency: key)
    }

    @Test(arguments: StoreFactory.all) func aRetryAnswersTheEntryTheKeyCreated(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try create(store, alice.id, key)
            #expect(!first.replayed)
            clock.advance(seconds: 60)
            let changed = try store.updateEntry(id: first.value.id, userID: alice.id, changes: EntryChanges(title: "changed since"))

            let retry = try create(store, alice.id, key)
            #expect(retry.replayed)
            #expect(retry.value == changed, "the entry as it is now")
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 1)
            #expect(try store.diaries()[0].entryCount == 1)
        }
    }

    @Test(arguments: StoreFactory.all) func aRetryAnswersTheDiaryTheKeyCreated(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try store.createDiary(ownerID: alice.id, title: "Travel", defaultVisibility: .private, idempotency: key)
            #expect(!first.replayed)
            let retry = try store.createDiary(ownerID: alice.id, title: "Travel", defaultVisibility: .private, idempotency: key)
            #expect(retry.replayed)
            #expect(retry.value == first.value)
            #expect(try store.diaries().count == 2)
        }
    }

    /// The same key with another request, or for another kind of resource, is refused and
    /// changes nothing.
    @Test(arguments: StoreFactory.all) func aKeyWithAnotherRequestIsRefused(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try create(store, alice.id, key).value
            let other = IdempotencyKey(key: key.key, fingerprint: "POST /api/entries {title: b}")
            let version = try store.dataVersion()
            expectStoreError(.keyReused, .idempotencyKey) { try create(store, alice.id, other, title: "b") }
            expectStoreError(.keyReused, .idempotencyKey) {
                try store.createDiary(ownerID: alice.id, title: "a", defaultVisibility: .public, idempotency: key)
            }
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).entries == [first])
            #expect(try store.diaries().count == 1)
            #expect(try store.dataVersion() == version, "a refused request writes nothing")
        }
    }

    @Test(arguments: StoreFactory.all) func keysBelongToTheirUser(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let hers = try create(store, alice.id, key)
            let his = try create(store, bob.id, key)
            #expect(!his.replayed)
            #expect(his.value.id != hers.value.id)
            #expect(his.value.author == "bob")
        }
    }

    /// A create that throws did not happen: its key is still unused.
    @Test(arguments: StoreFactory.all) func aFailedCreateLeavesTheKeyUnused(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let bobsDiary = try #require(try store.diaries().first { $0.owner == "bob" })
            expectStoreError(.forbidden, .diary(bobsDiary.id)) { try create(store, alice.id, key, diaryID: bobsDiary.id) }
            expectStoreError(.notFound, .diary(999)) { try create(store, alice.id, key, diaryID: 999) }
            let created = try create(store, alice.id, key)
            #expect(!created.replayed)
            #expect(created.value.author == "alice")
            _ = bob
        }
    }

    @Test(arguments: StoreFactory.all) func aKeyIsForgottenAfterItsLifetime(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let first = try create(store, alice.id, key)
            clock.advance(seconds: IdempotencyKey.lifetime - 60)
            #expect(try create(store, alice.id, key).replayed, "still remembered a minute before its lifetime ends")
            clock.advance(seconds: 120)
            let second = try create(store, alice.id, key)
            #expect(!second.replayed, "a new key a minute after")
            #expect(second.value.id > first.value.id)
            #expect(try create(store, alice.id, key).value.id == second.value.id)
        }
    }

    @Test(arguments: StoreFactory.all) func aRetryAfterTheEntryWasDeletedIsNotFound(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try create(store, alice.id, key).value
            try store.deleteEntry(id: entry.id, userID: alice.id)
            expectStoreError(.notFound, .createdByKey(.entry(entry.id))) { try create(store, alice.id, key) }
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 0)
        }
    }

    /// Retries that race each other still create one entry: the key is looked up and recorded
    /// in the creating transaction.
    @Test(arguments: StoreFactory.all) func concurrentRetriesCreateOneEntry(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let outcomes = Mutex<[Result<Created<Entry>, StoreError>]>([])
            onThreads(8) { _ in
                let outcome = Result { () throws(StoreError) in try create(store, alice.id, key) }
                outcomes.withLock { $0.append(outcome) }
            }
            let created = try outcomes.withLock { $0 }.map { try $0.get() }
            #expect(created.count == 8)
            #expect(created.filter { !$0.replayed }.count == 1)
            #expect(Set(created.map(\.value.id)).count == 1)
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 1)
        }
    }
}
