import DiaryAPI
import Foundation

/// Everything the server keeps. The handlers depend on this protocol only, so that a store on
/// another database can replace the SQLite one without touching them; the contract below is
/// what such a store must keep, and `Tests/DiaryStoreConformanceTests` checks it on every store.
///
/// - **One transaction per call, on the caller's thread.** Calls are synchronous: the server
///   makes them from the transport's worker threads, concurrently. A read sees one consistent
///   state (a page and its `total` agree). A write commits durably before it returns, and one
///   that throws has changed nothing.
/// - **Checks inside the transaction.** Ownership, an `EntryPrecondition` (`If-Match`) and an
///   `IdempotencyKey` are checked in the same transaction as the change they guard, so that no
///   other writer can slip between check and change.
/// - **Time.** Every time the store writes comes from its clock, in whole seconds (UTC); dates
///   given by callers are cut to whole seconds too.
/// - **Ids** are never reused, even after a delete: an old link answers 404, never someone's newer entry.
/// - **What others see.** Counts, `updated` times and tag counts as a reader who is not the
///   owner sees them count public entries only, and move in the same transaction as the change;
///   no read's answer to such a reader may depend on anyone's unlisted or private entries
///   (search ranking included).
/// - **Errors** are `StoreError`s whose `subject` says what they are about; `.unavailable`
///   means the database cannot answer now, and nothing was written, except when a remote
///   database's answer to COMMIT was lost and the database could not say afterwards what
///   became of the transaction: then the write may have been kept, and the detail says so.
///   `.timedOut` means a read ran past the store's query timeout and was stopped.
public protocol DiaryStore: Sendable {
    // MARK: Users

    /// Creates a user with the token's hash and a first diary titled "NAME's diary".
    /// Throws `.conflict` when the name is taken.
    func createUser(name: String, tokenHash: TokenHash) throws(StoreError) -> User
    /// Replaces the user's token: the old one stops working at once.
    func replaceToken(userName: String, tokenHash: TokenHash) throws(StoreError) -> User
    /// The user holding the token, or nil.
    func user(tokenHash: TokenHash) throws(StoreError) -> User?

    // MARK: Named tokens

    /// Who holds the token, the main one or a named one, and its scope; nil for a token nobody
    /// holds (a revoked one included, from the moment `revokeToken` returned). Records a named
    /// token's use at `time`, cut to the minute (`TokenUse`), when the stored minute is older:
    /// at most one write per token per minute, and one that does not move `dataVersion()`
    /// where the engine can keep it still (no kept answer shows when a token was used).
    func tokenHolder(tokenHash: TokenHash, at time: Date) throws(StoreError) -> TokenHolder?
    /// Adds a named token of `userID` (stored by its hash only). `.notFound` for no such user.
    func createToken(userID: Int64, name: String, scope: TokenScope, tokenHash: TokenHash) throws(StoreError) -> NamedToken
    /// The user's named tokens, oldest first.
    func tokens(userID: Int64) throws(StoreError) -> [NamedToken]
    /// Deletes the user's named token: it fails from the moment this returns. `.notFound` for
    /// an unknown id or another user's (a 403 would tell that it exists).
    func revokeToken(id: Int64, userID: Int64) throws(StoreError)

    // MARK: Diaries

    /// Every diary, as `viewerID` sees it: `entryCount` and `updated` count the viewer's own
    /// diaries whole and others' by their public entries only (nil: an anonymous reader).
    func diaries(viewerID: Int64?) throws(StoreError) -> [Diary]
    func diary(id: Int64, viewerID: Int64?) throws(StoreError) -> Diary?
    /// Creates a diary; with a key seen before, answers the diary that key created instead.
    /// Throws `.keyReused` when the key came with another request.
    func createDiary(
        ownerID: Int64, title: String, defaultVisibility: Visibility, idempotency: IdempotencyKey?
    ) throws(StoreError) -> Created<Diary>
    /// Changes the title or the default visibility, the fields that are not nil. Throws
    /// `.notFound` or `.forbidden`. Answers the diary as its owner sees it.
    func updateDiary(id: Int64, userID: Int64, title: String?, defaultVisibility: Visibility?) throws(StoreError) -> Diary

    // MARK: Entries

    /// A page of the entries `query` finds that `query.viewerID` may list (public ones, and all of
    /// the viewer's own): newest first (`created` descending, then `entry_id` descending) or by
    /// relevance; one diary's when `diaryID` is set (`.notFound` when that diary does not exist).
    /// Starts after `query.position` when set, else at the page.
    func entries(_ query: EntryQuery) throws(StoreError) -> EntryResults
    /// How many entries `query` finds (its diary, filter and viewer; not its page or position)
    /// that sort at or above (`created`, `id`) newest first: those created later, and those of
    /// the same second with an id as high or higher; 0 for a diary that does not exist. One
    /// statement whatever the data: a reading page finds its "newer" link with it, and paging
    /// through the entries of one second for it grew with how many shared that second.
    func countEntries(_ query: EntryQuery, atOrAbove created: Date, id: Int64) throws(StoreError) -> Int
    /// The entry, unless it is private and `viewerID` does not own it (then nil, as for an id never used).
    func entry(id: Int64, viewerID: Int64?) throws(StoreError) -> Entry?
    /// When what `viewerID` may list of one diary, or of all when nil, last changed; nil when
    /// there is no such diary, or no diary at all.
    func lastModified(diaryID: Int64?, viewerID: Int64?) throws(StoreError) -> Date?
    /// Writes an entry in `diaryID`, or when nil in the user's first diary (created if they have none).
    /// Throws `.notFound` for an unknown diary and `.forbidden` for someone else's. With a key
    /// seen before, answers the entry that key created instead (`.keyReused` for another request).
    /// `tags` are stored as given (normalised by the caller); `created` back-dates the entry (nil:
    /// now); `visibility` nil takes the diary's default. A `draft` is its owner's alone, as a
    /// private entry, until published (`EntryDraft` in StoreKernel).
    func createEntry(
        userID: Int64, diaryID: Int64?, title: String, body: String, tags: [String], created: Date?, visibility: Visibility?,
        draft: Bool, idempotency: IdempotencyKey?
    ) throws(StoreError) -> Created<Entry>
    /// Applies `changes`, if `precondition` holds for the entry as stored (`.preconditionFailed`
    /// otherwise). Throws `.forbidden` for another user's entry, and `.notFound` for an unknown
    /// one or another user's private one.
    func updateEntry(id: Int64, userID: Int64, changes: EntryChanges, precondition: EntryPrecondition?) throws(StoreError) -> Entry
    /// Deletes the entry if `precondition` holds for it. Throws as `updateEntry` does.
    func deleteEntry(id: Int64, userID: Int64, precondition: EntryPrecondition?) throws(StoreError)

    // MARK: Tags, export and import

    /// Every tag on an entry `viewerID` may list, with the number of such entries, by name.
    func tags(viewerID: Int64?) throws(StoreError) -> [TagCount]
    /// Up to `limit` entries with ids above `afterID` (nil: from the first), by id: `ownerID`'s
    /// entries, all of them, or every public entry when nil. Export reads the store in such
    /// batches (see `exportBatches`), so that memory stays flat.
    func entries(afterID: Int64?, limit: Int, ownerID: Int64?) throws(StoreError) -> [Entry]
    /// Writes exported entries for `userID` in one transaction, keeping their dates, tags and
    /// visibility (absent: the diary's default). An entry whose id is one of the user's entries is
    /// skipped; any other keeps its id when the id is above every id given out so far, and gets a
    /// new one otherwise, so that ids are never given out twice and another user's entries, even
    /// private ones, show nothing of themselves. A missing diary is created for the user with that
    /// id. Throws `.forbidden` for another user's diary, or an entry of another author.
    func importEntries(userID: Int64, entries: [ImportedEntry]) throws(StoreError) -> ImportResult
    /// The random secret made with the database that signs paging cursors.
    func cursorSecret() throws(StoreError) -> [UInt8]

    // MARK: Media

    /// Keeps a processed image of `userID` under a new random id, if the user's images with it
    /// take at most `quota` bytes (`.quotaExceeded` otherwise, nothing written): the sum is
    /// read in the write transaction, so two uploads at once cannot both pass it. With a key
    /// seen before, answers the image that key kept instead (`.keyReused` for another request).
    func createMedia(userID: Int64, media: NewMedia, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> Created<MediaItem>
    /// What can refuse or answer an upload before it is processed (a few hundred ms of CPU):
    /// the image an earlier upload with this key kept (`.keyReused` when the key came with
    /// another request), or `.quotaExceeded` when the user's images fill `quota` already.
    /// Nil: process it. `createMedia` checks both again in its transaction.
    func checkMediaUpload(userID: Int64, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> MediaItem?
    /// The image with its bytes, when `viewerID` may see it: its owner always; anyone else
    /// when they may read at least one of the owner's entries whose body links to it
    /// (`MediaLinks`). Nil otherwise, as for an id never given out.
    func media(id: MediaID, viewerID: Int64?) throws(StoreError) -> StoredMedia?
    /// Width and height, by id, of those of `ids` that `viewerID` may see (as `media` decides),
    /// without their bytes: what a page needs to lay an entry's images out.
    func mediaSizes(ids: [MediaID], viewerID: Int64?) throws(StoreError) -> [String: MediaSize]
    /// A page of `ownerID`'s images, newest first (`created`, then the order of upload), each
    /// with the ids of the owner's entries linking to it.
    func mediaList(ownerID: Int64, page: PageRequest) throws(StoreError) -> MediaPage
    /// Deletes one of `userID`'s images. `.notFound` for an unknown id and for another user's
    /// image alike: an id says nothing of whose it is. Entries linking to it keep their text.
    func deleteMedia(id: MediaID, userID: Int64) throws(StoreError)

    // MARK: Change feed

    /// Up to `limit` changes after `since` (nil: from the beginning) that `viewerID` may see,
    /// oldest first, in one read transaction: public entries created or changed, for a viewer
    /// also their own of any visibility, each whole as it is now; and tombstones for entries
    /// deleted or no longer listable by the viewer. Throws `.expired` when `since` is older than
    /// the tombstones kept. What anyone but an entry's owner receives, cursors included, depends
    /// only on public changes and their own (`ChangeFeed` in StoreKernel has the rules).
    func changes(since: ChangeCursor?, viewerID: Int64?, limit: Int) throws(StoreError) -> ChangePage

    // MARK: Scheduled posts

    /// The `created` of the scheduled entry due first (an entry written with a `created` ahead
    /// of the clock, not published yet: `EntrySchedule` in StoreKernel), or nil when none is
    /// waiting. One probe of an index over scheduled entries only. It changes only with a write,
    /// so a caller may keep it for as long as `dataVersion()` does not move.
    func nextPublication() throws(StoreError) -> Date?

    /// Publishes every scheduled entry whose `created` is at or before `now` (the caller's clock
    /// reading, the one it compared with `nextPublication()`), in one write transaction, and returns how many. A published entry is an ordinary one from
    /// then on, everywhere a write to it would show: lists, search, tags, counts, `updated` as
    /// others see it, the change feed, and the data version. Idempotent, and safe to call from
    /// several processes at once: an entry is published once. Until it is called, a due entry
    /// stays hidden from everyone but its owner: the server calls it before it answers a request
    /// once the clock has passed `nextPublication()` (`ScheduledPublication`).
    func publishDue(at now: Date) throws(StoreError) -> Int

    // MARK: Changes

    /// A number that changes once any write has committed, from this process or another (any
    /// server on the same database), and only then: what reads return is the same while it is.
    /// The response cache reads it before it builds an answer and again before it serves a kept
    /// one, so once a write has returned, no answer from before it is served. It must be cheap:
    /// every cached read asks for it.
    ///
    /// Only equality matters (the number need not grow by one per write), and a change without
    /// a write costs only a rebuilt answer; a write that commits without moving it is a stale
    /// page served. So a store shared by several processes keeps it where every writer
    /// commits: SQLite asks the file (`PRAGMA data_version`); PostgreSQL reads the
    /// `data_version` table that every writing transaction bumps before its COMMIT, one round
    /// trip. A counter in the process, or a notification that may arrive after the write has
    /// returned (LISTEN/NOTIFY), would not keep the promise across servers.
    func dataVersion() throws(StoreError) -> Int64

    /// How long every write waits after its commit is visible before it returns: so a
    /// `dataVersion()` read that *began* at time t reflects every write that returned before
    /// t + lease, and a reader may use that version for requests arriving until then instead of
    /// asking again. Only the rate of the servers' clocks must agree, not their time. Zero
    /// (the default) for a store whose `dataVersion()` costs nothing, such as SQLite's.
    var dataVersionLease: Duration { get }
}

extension DiaryStore {
    public var dataVersionLease: Duration { .zero }
}

/// What `entries(_:)` lists.
public struct EntryQuery: Sendable, Equatable {
    public var diaryID: Int64?
    public var page: PageRequest
    public var filter: EntryFilter
    /// Where a cursor left off; when set, `page.page` is ignored.
    public var position: EntryPosition?
    /// Who reads: their own entries are listed whatever their visibility; nil is anyone.
    public var viewerID: Int64?

    public init(
        diaryID: Int64? = nil, page: PageRequest = PageRequest(), filter: EntryFilter = EntryFilter(), position: EntryPosition? = nil,
        viewerID: Int64? = nil
    ) {
        self.diaryID = diaryID
        self.page = page
        self.filter = filter
        self.position = position
        self.viewerID = viewerID
    }
}

/// What `updateEntry` changes: the fields that are not nil.
public struct EntryChanges: Sendable, Equatable {
    public var title: String?
    public var body: String?
    /// Replaces every tag (normalised by the caller).
    public var tags: [String]?
    public var visibility: Visibility?
    /// Moves the entry's date; nil keeps it, whatever else changes, except that publishing a
    /// draft dates it now.
    public var created: Date?
    /// False publishes a draft, true makes the entry one; nil leaves it as it is.
    public var draft: Bool?

    public init(
        title: String? = nil, body: String? = nil, tags: [String]? = nil, visibility: Visibility? = nil, created: Date? = nil, draft: Bool? = nil
    ) {
        self.title = title
        self.body = body
        self.tags = tags
        self.visibility = visibility
        self.created = created
        self.draft = draft
    }
}

/// Where a list left off: after an entry (newest first: a keyset seek on the index), or
/// after a number of results (relevance order).
public enum EntryPosition: Sendable, Equatable, Hashable {
    case after(created: Date, id: Int64)
    case offset(Int)
}

/// A page and where the next one starts (nil on the last page).
public struct EntryResults: Sendable, Equatable {
    public var page: EntryPage
    public var next: EntryPosition?

    public init(page: EntryPage, next: EntryPosition?) {
        self.page = page
        self.next = next
    }
}

/// A check on an entry as stored, made in the same transaction as the change it guards
/// (an `If-Match` header compares the entry's ETag).
public typealias EntryPrecondition = @Sendable (Entry) -> Bool

/// An `Idempotency-Key` with a fingerprint of the request it came with: a retry must carry both.
public struct IdempotencyKey: Sendable, Equatable {
    /// How long a key is remembered.
    public static let lifetime: TimeInterval = 24 * 60 * 60

    public var key: String
    public var fingerprint: String

    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }
}

/// A resource a create call answered, and whether an earlier call with the same key made it.
public struct Created<Value: Sendable>: Sendable {
    public var value: Value
    public var replayed: Bool

    public init(_ value: Value, replayed: Bool = false) {
        self.value = value
        self.replayed = replayed
    }
}

// MARK: - Calls without keys or preconditions

extension DiaryStore {
    /// What anyone without a token sees of the entry: nil for a private one.
    public func entry(id: Int64) throws(StoreError) -> Entry? {
        try entry(id: id, viewerID: nil)
    }

    /// Every diary as anyone without a token sees it.
    public func diaries() throws(StoreError) -> [Diary] {
        try diaries(viewerID: nil)
    }

    public func diary(id: Int64) throws(StoreError) -> Diary? {
        try diary(id: id, viewerID: nil)
    }

    public func tags() throws(StoreError) -> [TagCount] {
        try tags(viewerID: nil)
    }

    public func lastModified(diaryID: Int64?) throws(StoreError) -> Date? {
        try lastModified(diaryID: diaryID, viewerID: nil)
    }

    /// A page of entries, newest first, without a filter.
    public func entries(diaryID: Int64?, page: PageRequest, viewerID: Int64? = nil) throws(StoreError) -> EntryPage {
        try entries(EntryQuery(diaryID: diaryID, page: page, viewerID: viewerID)).page
    }

    public func createEntry(
        userID: Int64, diaryID: Int64?, title: String, body: String, tags: [String] = [], created: Date? = nil,
        visibility: Visibility? = nil, draft: Bool = false
    ) throws(StoreError) -> Entry {
        try createEntry(
            userID: userID, diaryID: diaryID, title: title, body: body, tags: tags, created: created, visibility: visibility, draft: draft,
            idempotency: nil
        ).value
    }

    public func updateEntry(id: Int64, userID: Int64, changes: EntryChanges) throws(StoreError) -> Entry {
        try updateEntry(id: id, userID: userID, changes: changes, precondition: nil)
    }

    public func deleteEntry(id: Int64, userID: Int64) throws(StoreError) {
        try deleteEntry(id: id, userID: userID, precondition: nil)
    }

    public func createDiary(ownerID: Int64, title: String, defaultVisibility: Visibility = .public) throws(StoreError) -> Diary {
        try createDiary(ownerID: ownerID, title: title, defaultVisibility: defaultVisibility, idempotency: nil).value
    }

    /// Entries by id, read `batchSize` at a time as the iterator is pulled: `ownerID`'s, or
    /// every public one when nil.
    public func exportBatches(ownerID: Int64?, batchSize: Int = 500) -> ExportBatches {
        ExportBatches(store: self, ownerID: ownerID, batchSize: batchSize)
    }
}

/// Pulls the whole store in batches by id; each `next()` is one read transaction. Not
/// thread-safe: one reader pulls it (the export stream).
public final class ExportBatches: @unchecked Sendable {
    let store: any DiaryStore
    let ownerID: Int64?
    let batchSize: Int
    private var lastID: Int64?
    private var finished = false

    init(store: any DiaryStore, ownerID: Int64?, batchSize: Int) {
        self.store = store
        self.ownerID = ownerID
        self.batchSize = batchSize
    }

    /// The next batch, or nil after the last.
    public func next() throws(StoreError) -> [Entry]? {
        guard !finished else { return nil }
        let batch = try store.entries(afterID: lastID, limit: batchSize, ownerID: ownerID)
        if batch.count < batchSize { finished = true }
        guard let last = batch.last else { return nil }
        lastID = last.id
        return batch
    }
}

/// Why a store call failed, with what it was about.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The named thing does not exist.
        case notFound
        /// It exists but belongs to another user.
        case forbidden
        /// A unique value (a user name) is taken.
        case conflict
        /// The database cannot answer now: disk full, read-only file, I/O error, busy too long,
        /// a server that is down or silent.
        case unavailable
        /// A statement ran past the time one request may take (a read past the query timeout,
        /// or on PostgreSQL any statement past its statement timeout) and was stopped: the
        /// request's own cost, not a fault of the database, which serves the next call as
        /// before. Nothing was written.
        case timedOut
        /// The caller's precondition does not hold for the stored value: it changed since they read it.
        case preconditionFailed
        /// An idempotency key came again with a different request.
        case keyReused
        /// The write would take the user's stored images past their quota.
        case quotaExceeded
        /// A change-feed cursor is older than the tombstones the store keeps: the reader must
        /// start again from the beginning.
        case expired
    }

    public var kind: Kind
    /// What the error is about: a caller may act on it (an unknown `diary_id` in a body is the
    /// body's fault, not a missing page).
    public var subject: Subject
    /// More context, never shown to API clients when `kind` is `.unavailable`.
    public var detail: String

    public init(_ kind: Kind, _ subject: Subject, detail: String = "") {
        self.kind = kind
        self.subject = subject
        self.detail = detail
    }

    public var description: String {
        switch kind {
        case .notFound: "\(subject) does not exist"
        case .forbidden: "\(subject) belongs to another user"
        case .conflict: "\(subject) already exists"
        case .unavailable: "the database cannot answer now (\(subject)): \(detail)"
        case .timedOut: "\(subject) took longer than the query timeout: \(detail)"
        case .preconditionFailed: "\(subject) has changed since it was read"
        case .keyReused: "\(subject) was already used for a different request"
        case .quotaExceeded: "\(subject) would take more room than the quota allows"
        case .expired: "\(subject) is older than the changes this server keeps"
        }
    }

    /// What a store error is about; its description is the words an API answer uses.
    public indirect enum Subject: Sendable, Equatable, CustomStringConvertible {
        case entry(Int64)
        case diary(Int64)
        case user(Int64)
        case userName(String)
        /// An uploaded image, by its id.
        case media(String)
        /// A token hash that another user holds (only in a race: tokens are random).
        case token
        /// A named token, by its id.
        case namedToken(Int64)
        case idempotencyKey
        /// An imported entry that names another author.
        case entryByAuthor(Int64, author: String)
        /// What an idempotency key created earlier, gone since.
        case createdByKey(Subject)
        /// A value the store keeps for itself (the cursor secret).
        case setting(String)
        /// A call as a whole, for failures of the database rather than of a row: for logs.
        case operation(String)

        public var description: String {
            switch self {
            case .entry(let id): "entry \(id)"
            case .diary(let id): "diary \(id)"
            case .user(let id): "user \(id)"
            case .userName(let name): "user \(name)"
            case .media(let id): "image \(id)"
            case .token: "token"
            case .namedToken(let id): "token \(id)"
            case .idempotencyKey: "this idempotency key"
            case .entryByAuthor(let id, let author): "entry \(id), written by \(author.prefix(40)),"
            case .createdByKey(let created): "\(created), which this idempotency key created,"
            case .setting(let name): "setting \(name)"
            case .operation(let text): text
            }
        }
    }
}
