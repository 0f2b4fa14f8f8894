import APITokens
import DiaryAPI
import DiaryStore
import Foundation
import StoreTestSupport
import Testing

/// Named tokens: who holds them, their scope, their last use to the minute, and revocation
/// seen at once by a second store on the same data (a second server).
@Suite struct TokenTests {
    @Test(arguments: StoreFactory.all) func aNamedTokenIsHeldWithItsScopeAndTheMainOneWrites(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let main = APIToken.generate(), reading = APIToken.generate(), writing = APIToken.generate()
            let alice = try store.createUser(name: "alice", tokenHash: TokenHash(token: main))
            let readOnly = try store.createToken(userID: alice.id, name: "Feed reader", scope: .read, tokenHash: TokenHash(token: reading))
            let editor = try store.createToken(userID: alice.id, name: "iA Writer", scope: .write, tokenHash: TokenHash(token: writing))
            #expect(readOnly == NamedToken(id: readOnly.id, name: "Feed reader", scope: .read, created: clock.now))
            #expect(editor.id > readOnly.id)

            #expect(try store.tokenHolder(tokenHash: TokenHash(token: main), at: clock.now) == TokenHolder(user: alice, scope: .write))
            #expect(try store.tokenHolder(tokenHash: TokenHash(token: reading), at: clock.now) == TokenHolder(user: alice, scope: .read, tokenID: readOnly.id))
            #expect(try store.tokenHolder(tokenHash: TokenHash(token: writing), at: clock.now) == TokenHolder(user: alice, scope: .write, tokenID: editor.id))
            #expect(try store.tokenHolder(tokenHash: newTokenHash(), at: clock.now) == nil)
            // The main token's own lookup knows nothing of named ones.
            #expect(try store.user(tokenHash: TokenHash(token: reading)) == nil)
            #expect(try store.tokens(userID: alice.id).map(\.name) == ["Feed reader", "iA Writer"])
        }
    }

    @Test(arguments: StoreFactory.all) func lastUseIsKeptToTheMinuteAndWrittenOnceAMinute(_ factory: StoreFactory) throws {
        try withStore(factory, clock: TestClock("2026-11-22T04:30:20Z")) { store, clock in
            let token = APIToken.generate()
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let named = try store.createToken(userID: alice.id, name: "app", scope: .write, tokenHash: TokenHash(token: token))
            #expect(try store.tokens(userID: alice.id).first?.lastUsed == nil)

            _ = try store.tokenHolder(tokenHash: TokenHash(token: token), at: clock.now)
            let minute = RFC3339.date(from: "2026-11-22T04:30:00Z")!
            #expect(try store.tokens(userID: alice.id).first?.lastUsed == minute)

            // Within the minute: no write at all, so the data version stands still.
            let version = try store.dataVersion()
            _ = try store.tokenHolder(tokenHash: TokenHash(token: token), at: clock.now.addingTimeInterval(30))
            #expect(try store.dataVersion() == version)

            // An older time never moves it back.
            _ = try store.tokenHolder(tokenHash: TokenHash(token: token), at: minute.addingTimeInterval(-3600))
            #expect(try store.tokens(userID: alice.id).first?.lastUsed == minute)

            _ = try store.tokenHolder(tokenHash: TokenHash(token: token), at: clock.now.addingTimeInterval(61))
            #expect(try store.tokens(userID: alice.id) == [NamedToken(
                id: named.id, name: "app", scope: .write, created: clock.now, lastUsed: minute.addingTimeInterval(60)
            )])
        }
    }

    @Test(arguments: StoreFactory.all) func revokingHoldsAtOnceOnAnotherStoreAndOnlyForTheOwner(_ factory: StoreFactory) throws {
        try withStoreUnderTest(factory) { subject in
            let store = subject.store
            let other = try subject.openAnother()
            let token = APIToken.generate()
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let named = try store.createToken(userID: alice.id, name: "app", scope: .read, tokenHash: TokenHash(token: token))
            #expect(try other.tokenHolder(tokenHash: TokenHash(token: token), at: Date())?.user == alice)

            // Another user's token is as unknown as one never made.
            expectStoreError(.notFound, .namedToken(named.id)) { try store.revokeToken(id: named.id, userID: bob.id) }
            #expect(try other.tokenHolder(tokenHash: TokenHash(token: token), at: Date()) != nil)
            #expect(try store.tokens(userID: bob.id).isEmpty)

            try store.revokeToken(id: named.id, userID: alice.id)
            #expect(try other.tokenHolder(tokenHash: TokenHash(token: token), at: Date()) == nil)
            #expect(try store.tokens(userID: alice.id).isEmpty)
            expectStoreError(.notFound, .namedToken(named.id)) { try store.revokeToken(id: named.id, userID: alice.id) }
        }
    }

    @Test(arguments: StoreFactory.all) func aTokenCannotBeHeldTwiceNorByNobody(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let mainHash = newTokenHash()
            let alice = try store.createUser(name: "alice", tokenHash: mainHash)
            expectStoreError(.conflict, .token) {
                try store.createToken(userID: alice.id, name: "copy", scope: .write, tokenHash: mainHash)
            }
            let namedHash = newTokenHash()
            _ = try store.createToken(userID: alice.id, name: "app", scope: .write, tokenHash: namedHash)
            expectStoreError(.conflict, .token) { try store.createUser(name: "bob", tokenHash: namedHash) }
            expectStoreError(.notFound, .user(999)) {
                try store.createToken(userID: 999, name: "app", scope: .write, tokenHash: newTokenHash())
            }
        }
    }
}
