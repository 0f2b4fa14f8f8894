import DiaryAPI
import APITokens
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

@Suite struct UserTests {
    @Test(arguments: StoreFactory.all) func createUserMakesTheFirstDiary(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            #expect(alice.name == "alice")
            #expect(alice.id > 0)

            let diaries = try store.diaries()
            #expect(diaries.count == 1)
            let diary = try #require(diaries.first)
            #expect(diary.owner == "alice")
            #expect(diary.title == "alice's diary")
            #expect(diary.entryCount == 0)
            #expect(diary.created == clock.now)
            #expect(diary.updated == clock.now)
            #expect(try store.diary(id: diary.id) == diary)
        }
    }

    @Test(arguments: StoreFactory.all) func aTakenNameIsAConflictAndChangesNothing(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let first = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let secondHash = newTokenHash()
            expectStoreError(.conflict, .userName("alice")) {
                try store.createUser(name: "alice", tokenHash: secondHash)
            }
            #expect(try store.user(tokenHash: secondHash) == nil)
            #expect(try store.diaries().count == 1)
            // The next user still gets a fresh id after the failed insert.
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            #expect(bob.id > first.id)
        }
    }

    @Test(arguments: StoreFactory.all) func tokenLookupAndReplacement(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let oldToken = APIToken.generate(), newToken = APIToken.generate()
            let alice = try store.createUser(name: "alice", tokenHash: TokenHash(token: oldToken))
            _ = try store.createUser(name: "bob", tokenHash: newTokenHash())

            #expect(try store.user(tokenHash: TokenHash(token: oldToken)) == alice)
            #expect(try store.user(tokenHash: TokenHash(token: newToken)) == nil)

            let replaced = try store.replaceToken(userName: "alice", tokenHash: TokenHash(token: newToken))
            #expect(replaced == alice)
            #expect(try store.user(tokenHash: TokenHash(token: oldToken)) == nil)
            #expect(try store.user(tokenHash: TokenHash(token: newToken)) == alice)

            expectStoreError(.notFound, .userName("carol")) {
                try store.replaceToken(userName: "carol", tokenHash: newTokenHash())
            }
        }
    }

    @Test(arguments: StoreFactory.all) func aTokenCannotBeSharedAndErrorsNeverShowIt(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let token = APIToken.generate(), hash = TokenHash(token: token)
            _ = try store.createUser(name: "alice", tokenHash: hash)
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())

            let attempts: [() throws -> Void] = [
                { _ = try store.createUser(name: "carol", tokenHash: hash) },
                { _ = try store.replaceToken(userName: "bob", tokenHash: hash) },
            ]
            for attempt in attempts {
                let error = try #require(expectStoreError(.conflict, .token, attempt))
                let text = "\(error) \(error.subject) \(error.detail) \(String(reflecting: error))"
                #expect(!text.contains(hash.hex))
                #expect(!text.contains(token))
            }
            #expect(try store.user(tokenHash: hash)?.name == "alice")
            #expect(try store.diaries().map(\.owner) == ["alice", "bob"])
            _ = bob
        }
    }

    @Test(arguments: StoreFactory.all) func createDiaryForAnUnknownUserIsNotFound(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            clock.advance(seconds: 60)
            let travel = try store.createDiary(ownerID: alice.id, title: "Travel")
            #expect(travel.owner == "alice")
            #expect(travel.title == "Travel")
            #expect(travel.entryCount == 0)
            #expect(travel.created == clock.now)
            #expect(try store.diary(id: travel.id) == travel)

            expectStoreError(.notFound, .user(999)) {
                try store.createDiary(ownerID: 999, title: "Nobody's")
            }
            #expect(try store.diaries().count == 2)
        }
    }
}
