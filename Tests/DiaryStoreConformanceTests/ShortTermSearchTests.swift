import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

/// Terms of one and two characters, which a trigram index cannot hold: found in any script,
/// in titles and bodies, as the viewer may see them, and kept right through edits and deletes.
@Suite struct ShortTermSearchTests {
    private func titles(_ store: any DiaryStore, _ query: String, viewerID: Int64? = nil, order: EntryOrder? = nil) throws -> [String] {
        let filter = EntryFilter(query: query, order: order)
        return try store.entries(EntryQuery(page: newestFirstPage, filter: filter, viewerID: viewerID)).page.entries.map(\.title)
    }

    @Test(arguments: StoreFactory.all) func twoCharacterTermsInAnyScriptInTitlesAndBodies(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            for (title, body) in [("京都の秋", "紅葉を見た"), ("ZZ Top", "a concert"), ("notes", "the buzz of bees"), ("東京", "雨でした")] {
                _ = try store.createEntry(userID: alice.id, diaryID: nil, title: title, body: body)
                clock.advance(seconds: 60)
            }
            #expect(try titles(store, "京都") == ["京都の秋"])
            #expect(try titles(store, "紅葉") == ["京都の秋"])
            #expect(try titles(store, "でし") == ["東京"])
            #expect(try titles(store, "zz") == ["notes", "ZZ Top"], "ASCII letters in any case, newest first")
            #expect(try titles(store, "Zz", order: .newest) == ["notes", "ZZ Top"])
            #expect(try titles(store, "雨") == ["東京"], "one character")
            #expect(try titles(store, "z") == ["notes", "ZZ Top"])
            #expect(try titles(store, "q") == [])
            #expect(try titles(store, "紅葉 見た") == ["京都の秋"], "two short terms, both required")
            #expect(try titles(store, "紅葉 雨") == [])
            #expect(try titles(store, "bees zz") == ["notes"], "a short term with an indexed one")
            #expect(try titles(store, "concert zz") == ["ZZ Top"], "across title and body")
            #expect(try titles(store, "秋 紅") == ["京都の秋"])
        }
    }

    /// A short term finds another's private entry for nobody, and the viewer's own for them.
    @Test(arguments: StoreFactory.all) func shortTermsFindPrivateEntriesForTheirOwnerOnly(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "public", body: "紅葉 zz")
            clock.advance(seconds: 60)
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "secret", body: "紅葉 zz", visibility: .private)
            clock.advance(seconds: 60)
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "unlisted", body: "紅葉 zz", visibility: .unlisted)
            for term in ["紅葉", "zz", "z", "紅"] {
                #expect(try titles(store, term) == ["public"])
                #expect(try titles(store, term, viewerID: bob.id) == ["public"])
                #expect(try titles(store, term, viewerID: alice.id) == ["unlisted", "secret", "public"])
                let anyone = try store.entries(EntryQuery(filter: EntryFilter(query: term))).page
                #expect(anyone.total == 1 && !anyone.totalIsEstimate)
            }
        }
    }

    @Test(arguments: StoreFactory.all) func shortTermsFollowEditsAndDeletes(_ factory: StoreFactory) throws {
        try withStore(factory) { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "京都", body: "zz")
            #expect(try titles(store, "京都") == ["京都"] && titles(store, "zz") == ["京都"])
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "奈良", body: "qq"))
            #expect(try titles(store, "京都") == [] && titles(store, "zz") == [])
            #expect(try titles(store, "奈良") == ["奈良"] && titles(store, "qq") == ["奈良"])
            _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(visibility: .private))
            #expect(try titles(store, "奈良") == [] && titles(store, "奈良", viewerID: alice.id) == ["奈良"])
            try store.deleteEntry(id: entry.id, userID: alice.id)
            #expect(try titles(store, "奈良", viewerID: alice.id) == [] && titles(store, "q", viewerID: alice.id) == [])
        }
    }
}
