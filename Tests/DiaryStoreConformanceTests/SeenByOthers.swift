import DiaryAPI
import DiaryStore
import Foundation
import StoreTestSupport

/// Everything someone other than the owner (`viewerID`, nil: anyone) can read of the store, for
/// comparing two moments: the list, a search for `query`, diaries, tags, `Last-Modified`, the
/// export (anonymous) and the change feed. Shared by the draft and the schedule suites.
func seenByOthers(_ store: any DiaryStore, viewerID: Int64?, searching query: String) throws -> String {
    let page = try store.entries(EntryQuery(page: newestFirstPage, viewerID: viewerID)).page
    let search = try store.entries(EntryQuery(page: newestFirstPage, filter: EntryFilter(query: query), viewerID: viewerID)).page
    let exported = viewerID == nil ? try store.entries(afterID: nil, limit: 100, ownerID: nil) : []
    let changes = try store.changes(since: nil, viewerID: viewerID, limit: 100)
    return "\(page) \(search) \(try store.diaries(viewerID: viewerID)) \(try store.tags(viewerID: viewerID)) "
        + "\(String(describing: try store.lastModified(diaryID: nil, viewerID: viewerID))) \(exported) \(changes)"
}
