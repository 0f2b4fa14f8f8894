import DiaryAPI
import DiaryStore
import Foundation
import StoreTestSupport
import Testing

/// Uploaded images on every store: kept and read back byte for byte, seen by exactly those who
/// may read one of the owner's entries linking to them, listed, deleted, within a quota.
@Suite struct MediaTests {
    static let quota: Int64 = 1 << 30

    /// Bytes that stand for a processed image: the store keeps what it is given.
    static func image(_ size: Int, seed: UInt8 = 7) -> NewMedia {
        NewMedia(contentType: "image/jpeg", width: 640, height: 480, data: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    @Test(arguments: StoreFactory.all) func anImageIsItsOwnersAloneUntilAnEntryOthersMayReadLinksToIt(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let upload = Self.image(3_000)
            let created = try store.createMedia(userID: alice.id, media: upload, quota: Self.quota, idempotency: nil).value
            let id = try #require(MediaID(created.id))
            #expect(created.url == "/media/\(created.id)" && created.bytes == 3_000 && created.width == 640)

            let own = try #require(try store.media(id: id, viewerID: alice.id))
            #expect(own.data == upload.data && own.item == created && !own.isPublic)
            #expect(try store.media(id: id, viewerID: bob.id) == nil)
            #expect(try store.media(id: id, viewerID: nil) == nil)

            // A private entry linking to it shows it to nobody else.
            let entry = try store.createEntry(
                userID: alice.id, diaryID: nil, title: "Eikan-do", body: "![dusk](\(created.url))", visibility: .private
            )
            #expect(try store.media(id: id, viewerID: nil) == nil)
            #expect(try store.mediaSizes(ids: [id], viewerID: nil).isEmpty)
            #expect(try store.mediaSizes(ids: [id, MediaID.random()], viewerID: alice.id) == [created.id: MediaSize(width: 640, height: 480)])

            for visibility in [Visibility.unlisted, .public] {
                clock.advance(seconds: 1)
                _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(visibility: visibility))
                let seen = try #require(try store.media(id: id, viewerID: nil), "\(visibility)")
                #expect(seen.data == upload.data && seen.isPublic)
                #expect(try store.media(id: id, viewerID: bob.id)?.isPublic == true)
                #expect(try store.mediaSizes(ids: [id], viewerID: nil) == [created.id: MediaSize(width: 640, height: 480)])
            }

            // Back to private, or the link taken out, or the entry deleted: gone at once.
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(visibility: .private))
            #expect(try store.media(id: id, viewerID: bob.id) == nil)
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(visibility: .public))
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(body: "no picture today"))
            #expect(try store.media(id: id, viewerID: bob.id) == nil)
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(body: "again: \(created.url)"))
            #expect(try store.media(id: id, viewerID: bob.id) != nil)
            try store.deleteEntry(id: entry.id, userID: alice.id)
            #expect(try store.media(id: id, viewerID: bob.id) == nil)
            #expect(try store.media(id: id, viewerID: alice.id)?.isPublic == false)
        }
    }

    @Test(arguments: StoreFactory.all) func anotherUsersEntryLinkingToAnImagePublishesNothing(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let mallory = try store.createUser(name: "mallory", tokenHash: newTokenHash())
            let created = try store.createMedia(userID: alice.id, media: Self.image(100), quota: Self.quota, idempotency: nil).value
            _ = try store.createEntry(userID: mallory.id, diaryID: nil, title: "look", body: "![](\(created.url))", visibility: .public)
            #expect(try store.media(id: try #require(MediaID(created.id)), viewerID: nil) == nil)
            #expect(try store.media(id: try #require(MediaID(created.id)), viewerID: mallory.id) == nil)
        }
    }

    @Test(arguments: StoreFactory.all) func importedEntriesLinkTheirImages(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let created = try store.createMedia(userID: alice.id, media: Self.image(100), quota: Self.quota, idempotency: nil).value
            let diary = try #require(try store.diaries().first)
            let imported = Entry(
                id: 900, diaryID: diary.id, author: "alice", title: "old", body: "![](\(created.url))",
                created: Date(timeIntervalSince1970: 1_700_000_000), updated: Date(timeIntervalSince1970: 1_700_000_000)
            )
            _ = try store.importEntries(userID: alice.id, entries: [ImportedEntry(imported, visibility: .public)])
            #expect(try store.media(id: try #require(MediaID(created.id)), viewerID: nil)?.isPublic == true)
        }
    }

    @Test(arguments: StoreFactory.all) func theListIsTheOwnersNewestFirstWithTheEntriesLinkingToEach(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            var made: [MediaItem] = []
            for seed in 0..<3 {
                made.append(try store.createMedia(userID: alice.id, media: Self.image(50, seed: UInt8(seed)), quota: Self.quota, idempotency: nil).value)
                clock.advance(seconds: 1)
            }
            _ = try store.createMedia(userID: bob.id, media: Self.image(50), quota: Self.quota, idempotency: nil)
            let first = try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "\(made[0].url) and \(made[2].url)")
            let second = try store.createEntry(userID: alice.id, diaryID: nil, title: "b", body: "\(made[0].url)", visibility: .private)

            let page = try store.mediaList(ownerID: alice.id, page: PageRequest(page: 1, perPage: 2))
            #expect(page.total == 3 && page.nextPage == 2 && page.prevPage == nil)
            #expect(page.media.map(\.id) == [made[2].id, made[1].id])
            #expect(page.media.map(\.entryIDs) == [[first.id], []])
            let last = try store.mediaList(ownerID: alice.id, page: PageRequest(page: 2, perPage: 2))
            #expect(last.media.map(\.id) == [made[0].id] && last.nextPage == nil)
            #expect(last.media.first?.entryIDs == [first.id, second.id].sorted())
        }
    }

    @Test(arguments: StoreFactory.all) func deletingIsTheOwnersAndAnotherUsersIdIsUnknown(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let created = try store.createMedia(userID: alice.id, media: Self.image(100), quota: Self.quota, idempotency: nil).value
            let id = try #require(MediaID(created.id))
            expectStoreError(.notFound, .media(created.id)) { try store.deleteMedia(id: id, userID: bob.id) }
            #expect(try store.media(id: id, viewerID: alice.id) != nil)
            try store.deleteMedia(id: id, userID: alice.id)
            #expect(try store.media(id: id, viewerID: alice.id) == nil)
            expectStoreError(.notFound, .media(created.id)) { try store.deleteMedia(id: id, userID: alice.id) }
        }
    }

    @Test(arguments: StoreFactory.all) func theQuotaCountsTheUsersImagesAndRefusesPastIt(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            _ = try store.createMedia(userID: alice.id, media: Self.image(600), quota: 1_000, idempotency: nil)
            _ = try store.createMedia(userID: alice.id, media: Self.image(400), quota: 1_000, idempotency: nil)
            let version = try store.dataVersion()
            expectStoreError(.quotaExceeded) { try store.createMedia(userID: alice.id, media: Self.image(1), quota: 1_000, idempotency: nil) }
            #expect(try store.dataVersion() == version, "nothing written")
            #expect(try store.mediaList(ownerID: alice.id, page: PageRequest()).total == 2)
            _ = try store.createMedia(userID: bob.id, media: Self.image(1_000), quota: 1_000, idempotency: nil)
        }
    }

    @Test(arguments: StoreFactory.all) func aKeyAnswersTheImageItKeptAgain(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let key = IdempotencyKey(key: "upload-1", fingerprint: "f1")
            let first = try store.createMedia(userID: alice.id, media: Self.image(100), quota: Self.quota, idempotency: key)
            let again = try store.createMedia(userID: alice.id, media: Self.image(100), quota: Self.quota, idempotency: key)
            #expect(!first.replayed && again.replayed && again.value == first.value)
            #expect(try store.mediaList(ownerID: alice.id, page: PageRequest()).total == 1)
            expectStoreError(.keyReused, .idempotencyKey) {
                try store.createMedia(userID: alice.id, media: Self.image(100), quota: Self.quota, idempotency: IdempotencyKey(key: "upload-1", fingerprint: "f2"))
            }
        }
    }

    @Test(arguments: StoreFactory.all) func anUploadIsCheckedBeforeItIsProcessed(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let key = IdempotencyKey(key: "upload-1", fingerprint: "f1")
            #expect(try store.checkMediaUpload(userID: alice.id, quota: 1_000, idempotency: key) == nil)
            let first = try store.createMedia(userID: alice.id, media: Self.image(1_000), quota: 1_000, idempotency: key).value
            // The same key and request: the image it kept, quota or not.
            #expect(try store.checkMediaUpload(userID: alice.id, quota: 1_000, idempotency: key) == first)
            expectStoreError(.keyReused, .idempotencyKey) {
                try store.checkMediaUpload(userID: alice.id, quota: 1_000, idempotency: IdempotencyKey(key: "upload-1", fingerprint: "f2"))
            }
            // The quota filled to the byte: no image fits, whatever its size.
            expectStoreError(.quotaExceeded) { try store.checkMediaUpload(userID: alice.id, quota: 1_000, idempotency: nil) }
            #expect(try store.checkMediaUpload(userID: alice.id, quota: 1_001, idempotency: nil) == nil)
            // A key past its lifetime is a new key.
            clock.advance(seconds: IdempotencyKey.lifetime + 1)
            #expect(try store.checkMediaUpload(userID: alice.id, quota: 1_001, idempotency: key) == nil)
        }
    }

    @Test func linksAreEveryMediaPathWithExactlyThirtyTwoDigits() {
        let id = "0123456789abcdef0123456789abcdef"
        let body = "![a](/media/\(id)) [b](https://diary.example/media/\(id)) /media/\(id)0 /media/ABCDEF0123456789abcdef0123456789 /media/fedcba9876543210fedcba9876543210"
        #expect(MediaLinks.ids(in: body).map(\.text) == [id, "fedcba9876543210fedcba9876543210"])
        #expect(MediaID.random() != MediaID.random())
    }
}
