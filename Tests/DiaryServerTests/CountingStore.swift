import DiaryAPI
import DiaryStore
import Foundation
import Synchronization

/// A store that counts the calls made to it by name and passes each to the store it wraps:
/// for tests that a page reads what it shows in a fixed number of store calls.
final class CountingStore: DiaryStore {
    let wrapped: any DiaryStore
    private let counts = Mutex<[String: Int]>([:])

    init(_ wrapped: any DiaryStore) {
        self.wrapped = wrapped
    }

    /// The calls made since the last `reset`, by name.
    var calls: [String: Int] { counts.withLock { $0 } }

    func reset() {
        counts.withLock { $0 = [:] }
    }

    private func count(_ name: String) {
        counts.withLock { $0[name, default: 0] += 1 }
    }

    func createUser(name: String, tokenHash: TokenHash) throws(StoreError) -> User {
        count("createUser")
        return try wrapped.createUser(name: name, tokenHash: tokenHash)
    }

    func replaceToken(userName: String, tokenHash: TokenHash) throws(StoreError) -> User {
        count("replaceToken")
        return try wrapped.replaceToken(userName: userName, tokenHash: tokenHash)
    }

    func user(tokenHash: TokenHash) throws(StoreError) -> User? {
        count("user")
        return try wrapped.user(tokenHash: tokenHash)
    }

    func tokenHolder(tokenHash: TokenHash, at time: Date) throws(StoreError) -> TokenHolder? {
        count("tokenHolder")
        return try wrapped.tokenHolder(tokenHash: tokenHash, at: time)
    }

    func createToken(userID: Int64, name: String, scope: TokenScope, tokenHash: TokenHash) throws(StoreError) -> NamedToken {
        count("createToken")
        return try wrapped.createToken(userID: userID, name: name, scope: scope, tokenHash: tokenHash)
    }

    func tokens(userID: Int64) throws(StoreError) -> [NamedToken] {
        count("tokens")
        return try wrapped.tokens(userID: userID)
    }

    func revokeToken(id: Int64, userID: Int64) throws(StoreError) {
        count("revokeToken")
        try wrapped.revokeToken(id: id, userID: userID)
    }

    func diaries(viewerID: Int64?) throws(StoreError) -> [Diary] {
        count("diaries")
        return try wrapped.diaries(viewerID: viewerID)
    }

    func diary(id: Int64, viewerID: Int64?) throws(StoreError) -> Diary? {
        count("diary")
        return try wrapped.diary(id: id, viewerID: viewerID)
    }

    func createDiary(ownerID: Int64, title: String, defaultVisibility: Visibility, idempotency: IdempotencyKey?) throws(StoreError) -> Created<Diary> {
        count("createDiary")
        return try wrapped.createDiary(ownerID: ownerID, title: title, defaultVisibility: defaultVisibility, idempotency: idempotency)
    }

    func updateDiary(id: Int64, userID: Int64, title: String?, defaultVisibility: Visibility?) throws(StoreError) -> Diary {
        count("updateDiary")
        return try wrapped.updateDiary(id: id, userID: userID, title: title, defaultVisibility: defaultVisibility)
    }

    func entries(_ query: EntryQuery) throws(StoreError) -> EntryResults {
        count("entries")
        return try wrapped.entries(query)
    }

    func countEntries(_ query: EntryQuery, atOrAbove created: Date, id: Int64) throws(StoreError) -> Int {
        count("countEntries")
        return try wrapped.countEntries(query, atOrAbove: created, id: id)
    }

    func entry(id: Int64, viewerID: Int64?) throws(StoreError) -> Entry? {
        count("entry")
        return try wrapped.entry(id: id, viewerID: viewerID)
    }

    func lastModified(diaryID: Int64?, viewerID: Int64?) throws(StoreError) -> Date? {
        count("lastModified")
        return try wrapped.lastModified(diaryID: diaryID, viewerID: viewerID)
    }

    func createEntry(
        userID: Int64, diaryID: Int64?, title: String, body: String, tags: [String], created: Date?, visibility: Visibility?,
        draft: Bool, idempotency: IdempotencyKey?
    ) throws(StoreError) -> Created<Entry> {
        count("createEntry")
        return try wrapped.createEntry(
            userID: userID, diaryID: diaryID, title: title, body: body, tags: tags, created: created, visibility: visibility,
            draft: draft, idempotency: idempotency
        )
    }

    func updateEntry(id: Int64, userID: Int64, changes: EntryChanges, precondition: EntryPrecondition?) throws(StoreError) -> Entry {
        count("updateEntry")
        return try wrapped.updateEntry(id: id, userID: userID, changes: changes, precondition: precondition)
    }

    func deleteEntry(id: Int64, userID: Int64, precondition: EntryPrecondition?) throws(StoreError) {
        count("deleteEntry")
        try wrapped.deleteEntry(id: id, userID: userID, precondition: precondition)
    }

    func tags(viewerID: Int64?) throws(StoreError) -> [TagCount] {
        count("tags")
        return try wrapped.tags(viewerID: viewerID)
    }

    func entries(afterID: Int64?, limit: Int, ownerID: Int64?) throws(StoreError) -> [Entry] {
        count("entries(afterID:)")
        return try wrapped.entries(afterID: afterID, limit: limit, ownerID: ownerID)
    }

    func importEntries(userID: Int64, entries: [ImportedEntry]) throws(StoreError) -> ImportResult {
        count("importEntries")
        return try wrapped.importEntries(userID: userID, entries: entries)
    }

    func changes(since: ChangeCursor?, viewerID: Int64?, limit: Int) throws(StoreError) -> ChangePage {
        count("changes")
        return try wrapped.changes(since: since, viewerID: viewerID, limit: limit)
    }

    func nextPublication() throws(StoreError) -> Date? {
        count("nextPublication")
        return try wrapped.nextPublication()
    }

    func publishDue(at now: Date) throws(StoreError) -> Int {
        count("publishDue")
        return try wrapped.publishDue(at: now)
    }

    func cursorSecret() throws(StoreError) -> [UInt8] {
        count("cursorSecret")
        return try wrapped.cursorSecret()
    }

    func createMedia(userID: Int64, media: NewMedia, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> Created<MediaItem> {
        count("createMedia")
        return try wrapped.createMedia(userID: userID, media: media, quota: quota, idempotency: idempotency)
    }

    func checkMediaUpload(userID: Int64, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> MediaItem? {
        count("checkMediaUpload")
        return try wrapped.checkMediaUpload(userID: userID, quota: quota, idempotency: idempotency)
    }

    func media(id: MediaID, viewerID: Int64?) throws(StoreError) -> StoredMedia? {
        count("media")
        return try wrapped.media(id: id, viewerID: viewerID)
    }

    func mediaSizes(ids: [MediaID], viewerID: Int64?) throws(StoreError) -> [String: MediaSize] {
        count("mediaSizes")
        return try wrapped.mediaSizes(ids: ids, viewerID: viewerID)
    }

    func mediaList(ownerID: Int64, page: PageRequest) throws(StoreError) -> MediaPage {
        count("mediaList")
        return try wrapped.mediaList(ownerID: ownerID, page: page)
    }

    func deleteMedia(id: MediaID, userID: Int64) throws(StoreError) {
        count("deleteMedia")
        try wrapped.deleteMedia(id: id, userID: userID)
    }

    func dataVersion() throws(StoreError) -> Int64 {
        count("dataVersion")
        return try wrapped.dataVersion()
    }

    var dataVersionLease: Duration { wrapped.dataVersionLease }
}
