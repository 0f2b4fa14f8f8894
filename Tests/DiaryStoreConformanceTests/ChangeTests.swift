import APITokens
import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

/// `dataVersion()` against every method: each write that commits moves it, reads and refused
/// writes do not (else the response cache serves stale pages, or never hits).
@Suite struct ChangeTests {
    @Test(arguments: StoreFactory.all) func everyWriteMovesTheVersionAndNothingElseDoes(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "", tags: ["t"])
            let bobsDiary = try #require(try store.diaries().first { $0.owner == "bob" })
            let exported = try store.entries(afterID: nil, limit: 10, ownerID: alice.id)
            let image = NewMedia(contentType: "image/png", width: 1, height: 1, data: [1, 2, 3])
            let kept = try #require(MediaID(try store.createMedia(userID: alice.id, media: image, quota: 1_000, idempotency: nil).value.id))
            var version = try store.dataVersion()

            let reads: [(String, () throws -> Void)] = [
                ("user(tokenHash:)", { _ = try store.user(tokenHash: newTokenHash()) }),
                ("diaries", { _ = try store.diaries(viewerID: alice.id) }),
                ("diary", { _ = try store.diary(id: entry.diaryID, viewerID: nil) }),
                ("entries", { _ = try store.entries(EntryQuery(filter: EntryFilter(query: "a"), viewerID: alice.id)) }),
                ("entry", { _ = try store.entry(id: entry.id, viewerID: alice.id) }),
                ("lastModified", { _ = try store.lastModified(diaryID: nil, viewerID: nil) }),
                ("tags", { _ = try store.tags(viewerID: nil) }),
                ("entries(afterID:)", { _ = try store.entries(afterID: nil, limit: 10, ownerID: nil) }),
                ("cursorSecret", { _ = try store.cursorSecret() }),
                ("media", { _ = try store.media(id: kept, viewerID: alice.id) }),
                ("mediaList", { _ = try store.mediaList(ownerID: alice.id, page: PageRequest()) }),
            ]
            for (name, read) in reads {
                try read()
                #expect(try store.dataVersion() == version, "\(name) is a read")
            }

            let refused: [(String, () throws -> Void)] = [
                ("createUser of a taken name", { _ = try store.createUser(name: "alice", tokenHash: newTokenHash()) }),
                ("replaceToken of nobody", { _ = try store.replaceToken(userName: "carol", tokenHash: newTokenHash()) }),
                ("createDiary of nobody", { _ = try store.createDiary(ownerID: 999, title: "x") }),
                ("updateDiary of another", { _ = try store.updateDiary(id: bobsDiary.id, userID: alice.id, title: "x", defaultVisibility: nil) }),
                ("createEntry in another's diary", { _ = try store.createEntry(userID: alice.id, diaryID: bobsDiary.id, title: "x", body: "") }),
                ("updateEntry of another", { _ = try store.updateEntry(id: entry.id, userID: bob.id, changes: EntryChanges(title: "x")) }),
                ("deleteEntry of nothing", { try store.deleteEntry(id: 999, userID: alice.id) }),
                ("importEntries of another's", { _ = try store.importEntries(userID: bob.id, entries: exported.map { ImportedEntry($0, visibility: nil) }) }),
                ("createMedia past the quota", { _ = try store.createMedia(userID: alice.id, media: image, quota: 4, idempotency: nil) }),
                ("deleteMedia of another's", { try store.deleteMedia(id: kept, userID: bob.id) }),
            ]
            for (name, write) in refused {
                #expect(throws: StoreError.self, "\(name)") { try write() }
                #expect(try store.dataVersion() == version, "\(name) was refused")
            }

            var imported = entry
            imported.id = 500
            imported.title = "imported"
            let writes: [(String, () throws -> Void)] = [
                ("createUser", { _ = try store.createUser(name: "carol", tokenHash: newTokenHash()) }),
                ("replaceToken", { _ = try store.replaceToken(userName: "carol", tokenHash: newTokenHash()) }),
                ("createDiary", { _ = try store.createDiary(ownerID: alice.id, title: "More") }),
                ("updateDiary", { _ = try store.updateDiary(id: entry.diaryID, userID: alice.id, title: "Renamed", defaultVisibility: nil) }),
                ("createEntry", { _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "b", body: "") }),
                ("updateEntry", { _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(body: "changed")) }),
                ("updateEntry of its visibility", { _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(visibility: .private)) }),
                ("importEntries", { _ = try store.importEntries(userID: alice.id, entries: [ImportedEntry(imported, visibility: .public)]) }),
                ("deleteEntry", { try store.deleteEntry(id: entry.id, userID: alice.id) }),
                ("createMedia", { _ = try store.createMedia(userID: alice.id, media: image, quota: 1_000, idempotency: nil) }),
                ("deleteMedia", { try store.deleteMedia(id: kept, userID: alice.id) }),
            ]
            for (name, write) in writes {
                clock.advance(seconds: 1)
                try write()
                let after = try store.dataVersion()
                #expect(after != version, "\(name) committed")
                version = after
            }
        }
    }

    /// Another server's writes move this one's version as soon as they return (its response
    /// cache must not serve a page from before them), and its reads do not.
    @Test(arguments: StoreFactory.all) func writesOfAnotherStoreOnTheDataMoveTheVersion(_ factory: StoreFactory) throws {
        try withStoreUnderTest(factory) { subject in
            let store = subject.store, other = try subject.openAnother()
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            var version = try store.dataVersion()
            _ = try other.entries(EntryQuery(viewerID: alice.id))
            _ = try other.diaries()
            #expect(try store.dataVersion() == version, "reads of another store")
            for title in ["a", "b", "c"] {
                let entry = try other.createEntry(userID: alice.id, diaryID: nil, title: title, body: "")
                let seen = try store.dataVersion()
                #expect(seen != version, "the write of \(title) through the other store")
                #expect(try store.entry(id: entry.id) == entry)
                version = seen
            }
            try other.deleteEntry(id: 1, userID: alice.id)
            #expect(try store.dataVersion() != version, "a delete through the other store")
        }
    }

    /// The secret that signs cursors is made with the data and kept: the same for every call
    /// and every store on the data, and another for other data.
    @Test(arguments: StoreFactory.all) func theCursorSecretIsKeptWithTheData(_ factory: StoreFactory) throws {
        var secrets: [[UInt8]] = []
        for _ in 0..<2 {
            try withStoreUnderTest(factory) { subject in
                let secret = try subject.store.cursorSecret()
                #expect(secret.count >= 32, "an HMAC-SHA256 key of at least 256 bits")
                #expect(try subject.store.cursorSecret() == secret)
                #expect(try subject.openAnother().cursorSecret() == secret)
                secrets.append(secret)
            }
        }
        #expect(secrets.count == 2 && secrets[0] != secrets[1])
    }
}
