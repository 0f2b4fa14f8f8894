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
    /// entry (the API's cursor); "newer" starts after the entry `pageSize` places above the
    /// position this page starts after (`entry(_:placesAbove:)`), so that both links page by
    /// cursor at a cost that does not grow with the depth of the page.
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
                // The newer page is the `pageSize` entries just above this one's start (that
                // entry included), and it starts after the entry one further up; with no such
                // entry it is the first page.
                if let start = try entry(Self.pageSize, placesAbove: created, id: id, countingItself: true, in: base) {
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
            // This entry is in its diary's list when it is public.
            let next = try self.entry(1, placesAbove: entry.created, id: entry.id, countingItself: entry.visibility == .public, in: base)
            // The page also shows the diary's title and its neighbours, which move the diary's time.
            let lastModified = max(entry.updated, diary?.updated ?? entry.updated)
            // The site's images it shows, laid out at their size: one more read, only for a body that has any.
            let linked = MediaLinks.ids(in: entry.body)
            let sizes = linked.isEmpty ? [:] : try store.mediaSizes(ids: linked, viewerID: nil).mapValues { (width: $0.width, height: $0.height) }
            return (EntryReading(entry: entry, diary: diary, previous: previous, next: next, imageSizes: sizes), lastModified)
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

    /// Spans of time after an entry, in seconds, searched in turn for the entries above it:
    /// the same second, a minute, an hour, a day, a month, a year, then all that is newer.
    private static let windowsAbove: [TimeInterval?] = [0, 60, 3600, 86400, 30 * 86400, 365 * 86400, nil]

    /// The entry `steps` places above (`created`, `id`) in `base`'s list, newest first (1: the
    /// next newer), or nil when there are fewer; `countingItself`: (`created`, `id`) is itself
    /// in the list. Counting every entry above and skipping all but one, as this did, grew with
    /// how deep the entry lies (an old entry of a large diary read and dropped almost all of
    /// it); so the entries above are counted within a span of time after `created` that grows
    /// until it holds `steps` of them, and the entry is read at that small offset. When the
    /// first span falls short, the newest entry says how far the spans need to grow: one that
    /// reaches it holds every entry above. Past `PageDepth.maximumEntries` in one span (a burst
    /// of entries in one second), nil.
    private func entry(_ steps: Int, placesAbove created: Date, id: Int64, countingItself: Bool, in base: EntryQuery) throws(StoreError) -> Entry? {
        var query = base
        query.position = nil
        query.filter.since = created
        var newest: Date?
        for window in Self.windowsAbove {
            let end = window.map { created.addingTimeInterval($0) }
            query.filter.until = [end, base.filter.until].compactMap { $0 }.min()
            let inWindow = try store.countEntries(query, atOrAbove: created, id: id)
            let above = inWindow - (countingItself ? 1 : 0)
            guard above >= steps else {
                if newest == nil { newest = try newestCreated(in: base) ?? created }
                if let end, let newest, newest <= end { return nil }
                continue
            }
            guard inWindow <= PageDepth.maximumEntries else { return nil }
            query.page = PageRequest(page: above - steps + 1, perPage: 1)
            return try store.entries(query).page.entries.first
        }
        return nil
    }

    /// When the newest entry of `base`'s list was created; nil for an empty list.
    private func newestCreated(in base: EntryQuery) throws(StoreError) -> Date? {
        var query = base
        query.position = nil
        query.page = PageRequest(page: 1, perPage: 1)
        return try store.entries(query).page.entries.first?.created
    }
}
