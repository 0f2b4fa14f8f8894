import DiaryAPI
import DiaryStore
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import GRDB
import Testing

/// A replica's first sync writes its entries with the search indexes' triggers off and builds
/// the indexes once at its end (`buildDeferredSearchIndexes`): the indexes it builds answer
/// every search exactly as indexes kept entry by entry do, also after a sync cut off and
/// resumed, with entries changed, made private and deleted on the way.
@Suite struct ReplicaSearchIndexTests {
    static let words = ["coffee", "river", "Kyoto", "station", "quokka", "tea", "rain", "café", "zz"]
    static let japanese = ["京都", "紅葉", "雨", "見ました", "散歩"]

    /// Pages of changes as the feed sends them: alice's and bob's entries of every visibility,
    /// then edits, changes of visibility and deletions of some of them.
    static func pages() -> [[EntryChange]] {
        var random = ShortTermIndexTests.Dice(seed: 22)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func text(_ count: Int) -> String {
            (0..<count).map { _ in
                random.next(3) == 0 ? japanese[random.next(japanese.count)] : words[random.next(words.count)]
            }.joined(separator: random.next(2) == 0 ? " " : "")
        }
        func entry(_ id: Int64, visibility: Visibility?) -> Entry {
            let author = id % 3 == 0 ? "bob" : "alice"
            return Entry(
                id: id, diaryID: author == "bob" ? 2 : 1, author: author, title: text(2), body: text(3 + random.next(20)),
                created: start + Double(id * 60), updated: start + Double(id * 60), tags: id % 4 == 0 ? ["walk"] : [],
                visibility: visibility ?? [Visibility.public, .unlisted, .private][random.next(3)])
        }
        let written = (1...120).map { id in EntryChange.entry(entry(Int64(id), visibility: nil)) }
        // Edited, made private or public, deleted: what the triggers' update and delete halves do.
        let changed = (1...120).compactMap { id -> EntryChange? in
            switch random.next(6) {
            case 0: .deleted(entryID: Int64(id))
            case 1: .entry(entry(Int64(id), visibility: .private))
            case 2: .entry(entry(Int64(id), visibility: .public))
            default: nil
            }
        }
        let all = written + changed
        return stride(from: 0, to: all.count, by: 25).map { Array(all[$0..<min($0 + 25, all.count)]) }
    }

    /// Every search of one term, of two terms, by relevance and newest first, as alice and as
    /// anyone: the pages the store answers.
    static func searches(_ store: SQLiteDiaryStore) throws -> [EntryPage] {
        let alice = try store.replicaState().ownerID
        let terms = words + japanese + ["e", "京", "coffee 京都", "zz river", "fee"]
        return try terms.flatMap { term in
            try [alice, nil].flatMap { viewer in
                try [EntryOrder.relevance, .newest].map { order in
                    try store.entries(EntryQuery(page: newestFirstPage, filter: EntryFilter(query: term, order: order), viewerID: viewer)).page
                }
            }
        }
    }

    static func apply(_ pages: some Sequence<[EntryChange]>, to store: SQLiteDiaryStore, from first: Int = 0) throws {
        for (number, page) in pages.enumerated() {
            try store.applyReplicated(page, cursor: "\(first + number + 1).1", syncedAt: Date(), owner: "alice")
        }
    }

    @Test func indexesBuiltAtTheEndAnswerAsIndexesKeptEntryByEntry() throws {
        let pages = Self.pages()
        try withTemporaryDirectory { directory in
            // Kept entry by entry: the replica held an entry (now indexed) before the pages came,
            // and loses it with the last one.
            let kept = try SQLiteDiaryStore(path: directory.url.appendingPathComponent("kept.sqlite3").path)
            let extra = Entry(id: 10_000, diaryID: 1, author: "alice", title: "coffee 京都", body: "zz", created: Date(), updated: Date())
            try Self.apply([[.entry(extra)]], to: kept)
            try kept.buildDeferredSearchIndexes()
            #expect(try !kept.searchIndexesLag())
            try Self.apply(pages + [[.deleted(entryID: 10_000)]], to: kept, from: 1)
            #expect(try !kept.searchIndexesLag())

            // Built at the end: a first sync cut off after three pages, the store opened again,
            // the sync resumed.
            let path = directory.url.appendingPathComponent("built.sqlite3").path
            let cut = try SQLiteDiaryStore(path: path)
            try Self.apply(pages.prefix(3), to: cut)
            #expect(try cut.searchIndexesLag())
            try cut.close()
            let built = try SQLiteDiaryStore(path: path)
            try Self.apply(pages.dropFirst(3), to: built, from: 3)
            #expect(try built.searchIndexesLag())
            try built.buildDeferredSearchIndexes()
            #expect(try !built.searchIndexesLag())

            let searched = try Self.searches(built)
            #expect(searched == (try Self.searches(kept)))
            #expect(searched.contains { $0.entries.count > 3 })
            // Writes after the build keep the indexes as the triggers always did.
            let edited = Entry(id: 2, diaryID: 1, author: "alice", title: "quokka", body: "紅葉", created: Date(), updated: Date(), visibility: .public)
            for store in [built, kept] { try Self.apply([[.entry(edited), .deleted(entryID: 5)]], to: store, from: 100) }
            #expect(try Self.searches(built) == (try Self.searches(kept)))
            for store in [built, kept] {
                #expect(try store.integrityCheck() == "ok")
                try store.close()
            }
        }
    }
}
