import DiaryAPI
import DiaryPages
import DiaryStore
import Foundation

/// The store reads behind the reading pages and feeds. Every read is anonymous (`viewerID`
/// nil): a page shows what anyone may see, so that it can be kept and served to everyone.
extension Handlers {
    /// Entries on a list page and in a feed.
    static let pageSize = 20

    /// One page of a list, with the paths of the pages before and after it. `path` makes a
    /// page's path from its cursor (nil: the first page). "Older" continues after the last
    /// entry (the API's cursor); "newer" is found by counting the entries at or above the
    /// position this page starts after, so that both links page by cursor.
    func listing(
        _ subject: EntryListing.Subject, diaryID: Int64?, filter: EntryFilter, path: (String?) -> String
    ) throws(Problem) -> (EntryListing, Date?) {
        let codec = try run { () throws(StoreError) in try cursors.codec(store) }
        var position: EntryPosition?
        if let cursor = filter.cursor {
            guard let decoded = codec.decode(cursor, filter: filter, diaryID: diaryID) else {
                throw .badRequest("This page's address holds a cursor that this list did not hand out, or one that was altered.")
            }
            position = decoded
        }
        var base = EntryQuery(diaryID: diaryID, page: PageRequest(page: 1, perPage: Self.pageSize), filter: filter, viewerID: nil)
        base.filter.cursor = nil
        return try run { () throws(StoreError) in
            // Read before the page, so that a write between the two makes it older, never newer.
            let lastModified = try store.lastModified(diaryID: diaryID, viewerID: nil)
            var query = base
            query.position = position
            let results = try store.entries(query)
            let older = results.next.map { path(codec.encode($0, filter: base.filter, diaryID: diaryID)) }
            var newer: String?
            switch position {
            case nil:
                newer = nil
            case .offset(let offset):
                newer = path(offset > Self.pageSize ? codec.encode(.offset(offset - Self.pageSize), filter: base.filter, diaryID: diaryID) : nil)
            case .after(let created, let id):
                // The newer page is the `pageSize` entries just above this one's start, and it
                // starts after the entry one further up; with no such entry it is the first page.
                let above = try countAtOrAbove(created: created, id: id, in: base)
                if above > Self.pageSize, let start = try entry(atOffset: above - Self.pageSize - 1, since: created, in: base) {
                    newer = path(codec.encode(.after(created: start.created, id: start.id), filter: base.filter, diaryID: diaryID))
                } else {
                    newer = path(nil)
                }
            }
            let listing = EntryListing(
                subject: subject, entries: results.page.entries, diaryTitles: try diaryTitles(of: results.page.entries, subject: subject),
                total: results.page.total, totalIsEstimate: results.page.totalIsEstimate,
                newerPath: newer, olderPath: older
            )
            return (listing, lastModified)
        }
    }

    /// The titles of the diaries `entries` are in, by id, read in one store call whatever the
    /// number of diaries (none when a diary's own page already holds its title, or the page is empty).
    private func diaryTitles(of entries: [Entry], subject: EntryListing.Subject) throws(StoreError) -> [Int64: String] {
        if case .diary(let diary) = subject { return [diary.id: diary.title] }
        guard !entries.isEmpty else { return [:] }
        let shown = Set(entries.map(\.diaryID))
        var titles: [Int64: String] = [:]
        for diary in try store.diaries(viewerID: nil) where shown.contains(diary.id) {
            titles[diary.id] = diary.title
        }
        return titles
    }

    /// An entry's page: the entry if anyone may read it by its address (public or unlisted),
    /// its diary, and the diary's public entries just before and after it.
    func reading(entryID: Int64) throws(Problem) -> (EntryReading, Date) {
        try run { () throws(StoreError) in
            guard let entry = try store.entry(id: entryID, viewerID: nil) else {
                // A private entry and an id never used answer alike.
                throw StoreError(.notFound, .entry(entryID))
            }
            let diary = try store.diary(id: entry.diaryID, viewerID: nil)
            let base = EntryQuery(diaryID: entry.diaryID, page: PageRequest(page: 1, perPage: 1), viewerID: nil)
            var before = base
            before.position = .after(created: entry.created, id: entry.id)
            let previous = try store.entries(before).page.entries.first
            // Listed entries at or above this one, less this one when it is itself listed.
            let newer = try countAtOrAbove(created: entry.created, id: entry.id, in: base) - (entry.visibility == .public ? 1 : 0)
            let next = newer > 0 ? try self.entry(atOffset: newer - 1, since: entry.created, in: base) : nil
            // The page also shows the diary's title and its neighbours, which move the diary's time.
            let lastModified = max(entry.updated, diary?.updated ?? entry.updated)
            return (EntryReading(entry: entry, diary: diary, previous: previous, next: next), lastModified)
        }
    }

    /// The newest public entries of a diary, or of all when nil, and when that list last changed.
    func feedEntries(diaryID: Int64?) throws(Problem) -> (entries: [Entry], updated: Date?) {
        try run { () throws(StoreError) in
            let lastModified = try store.lastModified(diaryID: diaryID, viewerID: nil)
            let page = try store.entries(EntryQuery(diaryID: diaryID, page: PageRequest(page: 1, perPage: Self.pageSize), viewerID: nil)).page
            return (page.entries, lastModified)
        }
    }

    /// How many entries of `base`'s list sort at or above (`created`, `id`) in newest-first
    /// order: one store call, however many entries share that second.
    private func countAtOrAbove(created: Date, id: Int64, in base: EntryQuery) throws(StoreError) -> Int {
        var query = base
        query.position = nil
        return try store.countEntries(query, atOrAbove: created, id: id)
    }

    /// The entry at `offset` (0: the newest) of `base`'s list from `created` on.
    private func entry(atOffset offset: Int, since created: Date, in base: EntryQuery) throws(StoreError) -> Entry? {
        var query = base
        query.filter.since = created
        query.position = nil
        query.page = PageRequest(page: offset + 1, perPage: 1)
        return try store.entries(query).page.entries.first
    }
}
