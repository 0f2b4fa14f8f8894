import DiaryAPI
import DiaryStore
import Foundation
import Synchronization
import StoreTestSupport
import Testing

/// The change feed: what each reader gets, in what order, with what cursors, on every engine.
@Suite struct ChangeFeedTests {
    /// Every page from `since` to the end, and the cursor after the last.
    static func drain(_ store: any DiaryStore, since: ChangeCursor?, viewerID: Int64?, limit: Int = 100) throws -> ([EntryChange], ChangeCursor) {
        var changes: [EntryChange] = []
        var cursor = since
        while true {
            let page = try store.changes(since: cursor, viewerID: viewerID, limit: limit)
            changes += page.changes
            cursor = try #require(page.nextCursor)
            if !page.more { return (changes, cursor!) }
        }
    }

    /// What a replica holds after applying `changes` in order: entries by id.
    static func applied(_ changes: [EntryChange], onto start: [Int64: Entry] = [:]) -> [Int64: Entry] {
        changes.reduce(into: start) { held, change in
            switch change {
            case .entry(let entry): held[entry.id] = entry
            case .deleted(let id): held[id] = nil
            }
        }
    }

    @Test(arguments: StoreFactory.all) func eachReaderGetsWhatTheyMayListAndTombstonesForTheRest(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let open = try store.createEntry(userID: alice.id, diaryID: nil, title: "open", body: "", tags: ["t"])
            let secret = try store.createEntry(userID: alice.id, diaryID: nil, title: "secret", body: "", visibility: .private)
            let link = try store.createEntry(userID: alice.id, diaryID: nil, title: "link", body: "", visibility: .unlisted)
            let bobs = try store.createEntry(userID: bob.id, diaryID: nil, title: "bob's", body: "")

            let (anonymous, anonymousCursor) = try Self.drain(store, since: nil, viewerID: nil)
            #expect(anonymous == [.entry(open), .entry(bobs)])
            #expect(anonymousCursor == ChangeCursor(publicPosition: 2, ownPosition: nil))
            let (own, aliceCursor) = try Self.drain(store, since: nil, viewerID: alice.id)
            #expect(own == [.entry(open), .entry(secret), .entry(link), .entry(bobs)], "own first, then public, each entry once")
            #expect(aliceCursor == ChangeCursor(publicPosition: 2, ownPosition: 3))
            let (bobsView, bobCursor) = try Self.drain(store, since: nil, viewerID: bob.id)
            #expect(bobsView == [.entry(bobs), .entry(open)])

            // Nothing new: the same cursor back, and no more.
            let idle = try store.changes(since: anonymousCursor, viewerID: nil, limit: 10)
            #expect(idle.changes.isEmpty && !idle.more && idle.nextCursor == anonymousCursor)

            clock.advance(seconds: 60)
            let edited = try store.updateEntry(id: open.id, userID: alice.id, changes: EntryChanges(body: "edited"))
            let hidden = try store.updateEntry(id: link.id, userID: alice.id, changes: EntryChanges(visibility: .private))
            try store.deleteEntry(id: secret.id, userID: alice.id)
            let hiddenBob = try store.updateEntry(id: bobs.id, userID: bob.id, changes: EntryChanges(visibility: .unlisted))

            #expect(try Self.drain(store, since: anonymousCursor, viewerID: nil).0 == [.entry(edited), .deleted(entryID: bobs.id)])
            #expect(try Self.drain(store, since: bobCursor, viewerID: bob.id).0 == [.entry(hiddenBob), .entry(edited)])
            #expect(
                try Self.drain(store, since: aliceCursor, viewerID: alice.id).0
                    == [.entry(edited), .entry(hidden), .deleted(entryID: secret.id), .deleted(entryID: bobs.id)]
            )
            // Made public again: whole to everyone.
            let shown = try store.updateEntry(id: link.id, userID: alice.id, changes: EntryChanges(visibility: .public))
            #expect(try Self.drain(store, since: anonymousCursor, viewerID: nil).0.last == .entry(shown))
        }
    }

    /// A public entry made a draft again is stored private but shows its owner the visibility
    /// it will take: to everyone else the feed gives a tombstone, never the draft's text.
    @Test(arguments: StoreFactory.all) func aPublicEntryMadeADraftIsATombstoneToOthers(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            let open = try store.createEntry(userID: alice.id, diaryID: nil, title: "open", body: "")
            let (_, anonymousCursor) = try Self.drain(store, since: nil, viewerID: nil)
            let (_, bobCursor) = try Self.drain(store, since: nil, viewerID: bob.id)
            let (_, aliceCursor) = try Self.drain(store, since: nil, viewerID: alice.id)
            clock.advance(seconds: 60)
            let drafted = try store.updateEntry(id: open.id, userID: alice.id, changes: EntryChanges(body: "not yet", draft: true))
            #expect(drafted.draft && drafted.visibility == .public)
            #expect(try Self.drain(store, since: anonymousCursor, viewerID: nil).0 == [.deleted(entryID: open.id)])
            #expect(try Self.drain(store, since: bobCursor, viewerID: bob.id).0 == [.deleted(entryID: open.id)])
            #expect(try Self.drain(store, since: nil, viewerID: nil).0 == [.deleted(entryID: open.id)])
            #expect(try Self.drain(store, since: aliceCursor, viewerID: alice.id).0 == [.entry(drafted)])
        }
    }

    @Test(arguments: StoreFactory.all) func pagesOfAnySizeAddUpToTheWhole(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            for n in 0..<13 {
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "e\(n)", body: "", visibility: n % 3 == 0 ? .private : .public)
            }
            let (whole, end) = try Self.drain(store, since: nil, viewerID: alice.id, limit: 100)
            #expect(whole.count == 13)
            // An entry both public and the reader's comes once a page, but may come in two
            // pages (once from each sequence): applied in order, the replica is the same.
            for limit in [1, 2, 5, 8] {
                let (paged, pagedEnd) = try Self.drain(store, since: nil, viewerID: alice.id, limit: limit)
                #expect(Self.applied(paged) == Self.applied(whole) && pagedEnd == end, "limit \(limit)")
            }
            let first = try store.changes(since: nil, viewerID: nil, limit: 4)
            #expect(first.changes.count == 4 && first.more)
        }
    }

    /// Another reader's answers, cursors included, are the same whether or not the owner
    /// writes privately: each world gets the same public writes, one also private ones.
    @Test(arguments: StoreFactory.all) func othersCannotTellPrivateActivity(_ factory: StoreFactory) throws {
        try withStore(factory) { plain, _ in
            try withStore(factory) { mixed, _ in
                var pages: [[ChangePage]] = [[], []]
                for (index, store) in [plain, mixed].enumerated() {
                    let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
                    let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
                    let hidden = index == 1
                    let a = try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "", tags: [], created: Date(timeIntervalSince1970: 1_800_000_000), visibility: .public)
                    if hidden {
                        let p = try store.createEntry(userID: alice.id, diaryID: nil, title: "p", body: "", visibility: .private)
                        _ = try store.updateEntry(id: p.id, userID: alice.id, changes: EntryChanges(body: "x"))
                        _ = try store.updateEntry(id: p.id, userID: alice.id, changes: EntryChanges(visibility: .unlisted))
                        try store.deleteEntry(id: p.id, userID: alice.id)
                    }
                    _ = try store.updateEntry(id: a.id, userID: alice.id, changes: EntryChanges(body: "public edit"))
                    for viewer in [nil, bob.id] {
                        pages[index].append(try store.changes(since: nil, viewerID: viewer, limit: 1))
                        pages[index].append(try store.changes(since: ChangeCursor(publicPosition: 1, ownPosition: 0), viewerID: viewer, limit: 10))
                    }
                }
                // The stores' clocks differ in nothing but the entries' ids, which private
                // creations use up: compare all but the ids of entries, which are the same here.
                #expect(pages[0] == pages[1])
            }
        }
    }

    @Test(arguments: StoreFactory.all) func aCursorOlderThanTheTombstonesKeptIsExpired(_ factory: StoreFactory) throws {
        try withStoreUnderTest(factory) { subject in
            let store = subject.store
            try subject.keepTombstones(2)
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entries = try (0..<5).map { n in try store.createEntry(userID: alice.id, diaryID: nil, title: "e\(n)", body: "") }
            let early = try store.changes(since: nil, viewerID: nil, limit: 1).nextCursor!
            let (_, beforeDeletes) = try Self.drain(store, since: nil, viewerID: alice.id)
            for entry in entries.prefix(3) { try store.deleteEntry(id: entry.id, userID: alice.id) }
            // The first tombstone was dropped: a cursor before it may have missed it.
            expectStoreError(.expired) { try store.changes(since: early, viewerID: nil, limit: 10) }
            expectStoreError(.expired) { try store.changes(since: beforeDeletes, viewerID: alice.id, limit: 10) }
            // From the beginning needs no tombstone; the kept ones still come to a recent cursor.
            let (fresh, _) = try Self.drain(store, since: nil, viewerID: nil)
            #expect(fresh.compactMap { if case .entry(let e) = $0 { e.id } else { nil } } == entries.suffix(2).map(\.id))
            let recent = ChangeCursor(publicPosition: 7, ownPosition: 7)
            #expect(try Self.drain(store, since: recent, viewerID: alice.id).0 == [.deleted(entryID: entries[2].id)])
        }
    }

    /// Writers on two stores of the same data (two servers) while a reader syncs from either,
    /// page after page: the reader never passes a change that commits later, so what it holds
    /// at the end is what a sync from the beginning holds.
    @Test(arguments: StoreFactory.all) func aReaderSyncingDuringWritesMissesNothing(_ factory: StoreFactory) throws {
        try withStoreUnderTest(factory) { subject in
            let stores = [subject.store, try subject.openAnother()]
            let alice = try stores[0].createUser(name: "alice", tokenHash: newTokenHash())
            // A diary each: writers of one diary wait for each other on its row anyway.
            let diaries = try (0..<4).map { n in try stores[0].createDiary(ownerID: alice.id, title: "d\(n)").id }
            let writersLeft = Mutex(4)
            let failures = Mutex<[String]>([])
            // The reader's replica: what it holds and where it left off.
            let replica = Mutex<([Int64: Entry], ChangeCursor?)>(([:], nil))
            // Threads of their own (concurrentPerform runs as many at once as there are cores).
            let done = DispatchGroup()
            for worker in 0..<4 {
                done.enter()
                Thread {
                    defer {
                        writersLeft.withLock { $0 -= 1 }
                        done.leave()
                    }
                    do {
                        let store = stores[worker % 2]
                        for n in 0..<15 {
                            let entry = try store.createEntry(
                                userID: alice.id, diaryID: diaries[worker], title: "w\(worker) \(n)", body: "",
                                visibility: n % 3 == 0 ? .private : .public
                            )
                            if n % 2 == 0 { _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(body: "edited")) }
                            if n % 5 == 4 { try store.deleteEntry(id: entry.id, userID: alice.id) }
                        }
                    } catch {
                        failures.withLock { $0.append("write: \(error)") }
                    }
                }.start()
            }
            var reads = 0
            while writersLeft.withLock({ $0 }) > 0 {
                let since = replica.withLock { $0.1 }
                let page = try stores[reads % 2].changes(since: since, viewerID: alice.id, limit: 3)
                replica.withLock { $0 = (Self.applied(page.changes, onto: $0.0), page.nextCursor) }
                reads += 1
            }
            done.wait()
            let (held, cursor) = replica.withLock { $0 }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let (rest, _) = try Self.drain(stores[1], since: cursor, viewerID: alice.id)
            let (whole, _) = try Self.drain(stores[0], since: nil, viewerID: alice.id)
            #expect(Self.applied(rest, onto: held) == Self.applied(whole))
            #expect(Self.applied(whole).count == 4 * 12)
        }
    }
}
