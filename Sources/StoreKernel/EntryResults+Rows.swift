import DiaryAPI
import DiaryStore

extension EntryResults {
    /// A page from the rows a store read for `query`: one row past `limit` says a next page
    /// exists; a search's entries get their snippets; the position after the page is an offset
    /// for a ranked search and the last entry's place otherwise. Every engine builds its
    /// answer here, so that none pages or snippets differently.
    public init(rows: [Entry], for query: EntryQuery, limit: Int, offset: Int, ranked: Bool, total: Int, totalIsEstimate: Bool = false) {
        var entries = rows
        let hasNext = entries.count > limit
        entries.removeLast(max(entries.count - limit, 0))
        let terms = query.filter.terms
        if !terms.isEmpty {
            for index in entries.indices {
                entries[index].snippet = Snippet.make(title: entries[index].title, body: entries[index].body, terms: terms)
            }
        }
        var next: EntryPosition?
        if hasNext, let last = entries.last {
            next = ranked ? .offset(offset + limit) : .after(created: last.created, id: last.id)
        }
        let page = EntryPage(
            entries: entries, page: query.page.page, perPage: query.page.perPage, total: total, nextCursor: nil,
            totalIsEstimate: totalIsEstimate, moreFollow: hasNext
        )
        self.init(page: page, next: next)
    }
}
