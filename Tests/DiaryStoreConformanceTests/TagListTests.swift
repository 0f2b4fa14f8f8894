import DiaryAPI
import DiaryStore
import StoreTestSupport
import Foundation
import Testing

/// Lists of a tag on more entries than a list counts (`EntryPage.countedMatches`), whose pages
/// walk the tag's rows newest first (`EntryListSQL.tagWalk`). Each row carries copies of its
/// entry's date, visibility and diary (SQLite schema v9, PostgreSQL v12), which must follow every
/// change of the entry: a page is checked against the entries as the test wrote them, and so are
/// the counts of `tags(viewerID:)`, which the schema keeps (SQLite v10, PostgreSQL v13).
@Suite struct TagListTests {
    /// An entry as the test wrote it.
    struct Written {
        var id: Int64
        var diaryID: Int64
        var created: Date
        var visibility: Visibility
        var tags: [String]
        /// "evening" in every other entry, else "morning".
        var body: String { id % 2 == 0 ? "evening" : "morning" }
    }

    /// One list asked of the store: its tags, diary, dates and words (newest first).
    struct Asked: CustomStringConvertible {
        var tags: [String]
        var diaryID: Int64? = nil
        var since: Date? = nil
        var until: Date? = nil
        var words: String? = nil
        var description: String { "\(tags) diary \(diaryID ?? 0) since \(since.map { "\($0)" } ?? "-") words \(words ?? "-")" }
    }

    let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// 1,300 entries of alice, in her first diary and a ninth that the import makes, one in ten private and one in ten
    /// unlisted. Every fifth is dated
    /// 500 minutes before its neighbours, so that the order by date is not the order by id.
    func written() -> [Written] {
        (1...1_300).map { (n: Int) -> Written in
            let minutes = n % 5 == 0 ? n - 500 : n
            let visibility: Visibility = n % 10 == 7 ? .private : n % 10 == 3 ? .unlisted : .public
            let tags = n % 3 == 0 ? ["every", "third"] : ["every"]
            return Written(id: Int64(n), diaryID: n % 4 == 0 ? 9 : 1, created: start + Double(minutes * 60), visibility: visibility, tags: tags)
        }
    }

    /// The ids of `page` (of 20) of `asked`, as `viewer` lists them, from what was written.
    func expected(_ written: [Written], _ asked: Asked, viewer: Int64?, owner: Int64, page: Int) -> [Int64] {
        let listed = written.filter { entry in
            (entry.visibility == .public || viewer == owner) && asked.tags.allSatisfy(entry.tags.contains)
                && asked.diaryID.map { $0 == entry.diaryID } ?? true
                && asked.since.map { entry.created >= $0 } ?? true && asked.until.map { entry.created <= $0 } ?? true
                && asked.words.map { $0 == entry.body } ?? true
        }
        let newestFirst = listed.sorted { ($0.created, $0.id) > ($1.created, $1.id) }
        return Array(newestFirst.dropFirst((page - 1) * 20).prefix(20)).map(\.id)
    }

    /// Each tag `viewer` may list entries of, with how many, from what was written.
    func expectedTags(_ written: [Written], viewer: Int64?, owner: Int64) -> [TagCount] {
        let listed = written.filter { entry in entry.visibility == .public || viewer == owner }
        let counts = Dictionary(listed.flatMap(\.tags).map { ($0, 1) }, uniquingKeysWith: +)
        return counts.map { TagCount(name: $0.key, count: $0.value) }.sorted { $0.name < $1.name }
    }

    @Test(arguments: StoreFactory.all) func aTagsPagesFollowTheChangesOfItsEntries(_ factory: StoreFactory) throws {
        try withStore(factory) { store, clock in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            var written = written()
            let imported = written.map { entry in
                ImportedEntry(
                    Entry(id: entry.id, diaryID: entry.diaryID, author: "alice", title: "t\(entry.id)", body: entry.body, created: entry.created,
                          updated: entry.created, tags: entry.tags, visibility: entry.visibility),
                    visibility: entry.visibility
                )
            }
            #expect(try store.importEntries(userID: alice.id, entries: imported) == ImportResult(created: 1_300, skipped: 0))
            let lists = [
                Asked(tags: ["every"]), Asked(tags: ["every", "third"]), Asked(tags: ["third"], diaryID: 9), Asked(tags: ["every"], diaryID: 1),
                Asked(tags: ["every"], since: start + 20_000, until: start + 60_000), Asked(tags: ["every", "third"], words: "evening"),
                Asked(tags: ["third", "every"], diaryID: 1, words: "morning"),
            ]
            func compareAll(_ label: String) throws {
                for viewer in [nil, alice.id, bob.id] {
                    #expect(try store.tags(viewerID: viewer) == expectedTags(written, viewer: viewer, owner: alice.id), "\(label): tags \(viewer ?? 0)")
                }
                for asked in lists {
                    for viewer in [nil, alice.id, bob.id] {
                        for page in [1, 3, 30, 60] {
                            let filter = EntryFilter(query: asked.words, order: .newest, since: asked.since, until: asked.until, tags: asked.tags)
                            let query = EntryQuery(diaryID: asked.diaryID, page: PageRequest(page: page, perPage: 20), filter: filter, viewerID: viewer)
                            let ids = try store.entries(query).page.entries.map(\.id)
                            #expect(ids == expected(written, asked, viewer: viewer, owner: alice.id, page: page), "\(label): \(asked) \(viewer ?? 0) page \(page)")
                        }
                    }
                }
            }
            try compareAll("imported")
            // An old entry dated newest, the newest public one made private and a private one
            // public, an unlisted one private, one tag taken off an entry and put on another, a
            // public entry and a private one deleted.
            clock.advance(seconds: 60)
            let changes: [(Int64, EntryChanges)] = [
                (10, EntryChanges(created: start + 2_000_000)), (1_291, EntryChanges(visibility: .private)),
                (27, EntryChanges(visibility: .public)), (13, EntryChanges(visibility: .private)), (1_200, EntryChanges(tags: ["third"])), (1_201, EntryChanges(tags: ["every", "third"])),
            ]
            for (id, change) in changes {
                _ = try store.updateEntry(id: id, userID: alice.id, changes: change)
                let index = written.firstIndex { $0.id == id }!
                if let created = change.created { written[index].created = created }
                if let visibility = change.visibility { written[index].visibility = visibility }
                if let tags = change.tags { written[index].tags = tags }
            }
            for id: Int64 in [1_299, 1_297] {
                try store.deleteEntry(id: id, userID: alice.id)
                written.removeAll { $0.id == id }
            }
            try compareAll("changed")
        }
    }
}
