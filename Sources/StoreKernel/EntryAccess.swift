import DiaryAPI
import DiaryStore
import Foundation

/// Who may list, read and change an entry, written once: each engine's SQL follows `listable`
/// and `mayRead`, and its Swift checks call them.
///
/// - Anyone may list and read a public entry; only its owner (the owner of its diary) lists an
///   unlisted or private one.
/// - An unlisted entry is read by anyone with its id; a private one by its owner only: to
///   anyone else it does not exist, as an id never used.
/// - Only the owner changes an entry; anyone else is told `.forbidden`, unless the entry is
///   private: then `.notFound`, since a 403 would tell that it exists.
/// - What others see of counts and times counts public entries only (the diaries' `public_*`
///   columns).
public enum EntryAccess {
    /// Whether `viewerID` (nil: anyone) may read an entry of `ownerID` with `visibility` (as
    /// stored: a draft is stored private, see `EntryDraft`).
    public static func mayRead(_ visibility: Visibility, ownerID: Int64, viewerID: Int64?) -> Bool {
        visibility != .private || ownerID == viewerID
    }

    /// Whether `viewerID` may read `entry`, as its owner sees it (a draft or a scheduled entry
    /// shows the visibility it will take): either is read as the private entry it is stored as.
    public static func mayRead(_ entry: Entry, ownerID: Int64, viewerID: Int64?) -> Bool {
        mayRead(entry.isWaiting ? .private : entry.visibility, ownerID: ownerID, viewerID: viewerID)
    }

    /// Whether `viewerID` may list `entry`, as its owner sees it: a public entry that is not a
    /// draft nor scheduled (either shows the visibility it will take, but is stored private), or
    /// any of the viewer's own. `listable` is the same rule in SQL.
    public static func mayList(_ entry: Entry, ownerID: Int64, viewerID: Int64?) -> Bool {
        (entry.visibility == .public && !entry.isWaiting) || (viewerID != nil && ownerID == viewerID)
    }

    /// The entries `viewerID` may list, as a condition on entries `e`: public ones, and all of
    /// the viewer's own, in a diary `inDiaryOf` says is theirs (an engine may write that its
    /// own way: `EntrySQLDialect.inDiaryOf`). `visibility = 'public'` is written out so that
    /// the indexes on public entries serve it.
    public static func listable(by viewerID: Int64?, inDiaryOf: (Int64) -> SQLFragment = inDiaryOf) -> SQLFragment {
        guard let viewerID else { return "e.visibility = 'public'" }
        return "(e.visibility = 'public' OR \(inDiaryOf(viewerID)))"
    }

    /// Whether entry `e` is in one of the diaries of `userID`.
    public static func inDiaryOf(_ userID: Int64) -> SQLFragment {
        "e.diary_id IN (SELECT diary_id FROM diaries WHERE user_id = \(userID))"
    }

    /// The diary `userID` asks to write to, as the engine read it (nil: no such diary), when
    /// `ownerID` of it is `userID`: else `.notFound`, or `.forbidden` for another user's.
    public static func ownedDiary<Stored>(
        _ diaryID: Int64, stored: Stored?, userID: Int64, ownerID: (Stored) -> Int64
    ) throws(StoreError) -> Stored {
        guard let stored else { throw StoreError(.notFound, .diary(diaryID)) }
        guard ownerID(stored) == userID else { throw StoreError(.forbidden, .diary(diaryID)) }
        return stored
    }

    /// A diary's count or time as a viewer sees it, as an SQL expression: its owner (the diary
    /// column `owner` equal to `viewer`, the statement's placeholder for the viewer's id, NULL
    /// for anyone) sees `whole`, anyone else `publicOnly`, which counts public entries only.
    public static func seen(_ whole: String, else publicOnly: String, owner: String = "user_id", viewer: String) -> String {
        "CASE WHEN \(owner) = \(viewer) THEN \(whole) ELSE \(publicOnly) END"
    }

    /// The entry `userID` asks to change, from what the engine read of it (nil: no such
    /// entry): its diary and visibility when `userID` owns it, else `.forbidden`, or `.notFound`
    /// for a private one.
    public static func ownedEntry(_ entryID: Int64, stored: StoredEntryOwner?, userID: Int64) throws(StoreError) -> OwnedEntry {
        guard let stored else { throw StoreError(.notFound, .entry(entryID)) }
        guard stored.ownerID == userID else {
            throw StoreError(stored.visibility == .private ? .notFound : .forbidden, .entry(entryID))
        }
        return OwnedEntry(diaryID: stored.diaryID, stored: stored.columns, created: stored.created)
    }
}

/// What an engine reads of an entry to decide who may change it.
public struct StoredEntryOwner: Sendable {
    public var diaryID: Int64
    public var ownerID: Int64
    /// Its visibility columns: private for a draft or a scheduled entry.
    public var columns: EntryDraft.Stored
    /// Its date: whether a change leaves it scheduled depends on it (`EntryDraft.applying`).
    public var created: Date

    public var visibility: Visibility { columns.visibility }

    public init(diaryID: Int64, ownerID: Int64, columns: EntryDraft.Stored, created: Date) {
        self.diaryID = diaryID
        self.ownerID = ownerID
        self.columns = columns
        self.created = created
    }
}

/// An entry its caller owns, as stored before the change: where it is and who saw it.
public struct OwnedEntry: Sendable {
    public var diaryID: Int64
    /// As stored: private for a draft or a scheduled entry.
    public var stored: EntryDraft.Stored
    public var created: Date

    public var visibility: Visibility { stored.visibility }

    /// What `changes` leave of the entry's stored visibility, and its new `created` (nil: kept;
    /// now when they publish a draft), by `EntryDraft.applying`: the engine writes the columns,
    /// and passes the new `visibility` as `becoming` to `changeIsPublic` and `publicCountChange`.
    public func applying(_ changes: EntryChanges, now: Date) -> (stored: EntryDraft.Stored, created: Date?) {
        EntryDraft.applying(changes, to: stored, created: created, now: now)
    }

    /// Whether others see a change that leaves the entry `becoming` (nil: as it is; a
    /// deletion is a change to nothing public): they do when it was public or becomes public,
    /// and then its diary's public `updated` moves.
    public func changeIsPublic(becoming: Visibility?) -> Bool {
        visibility == .public || becoming == .public
    }

    /// How much a change to `becoming` (nil: as it is) moves the diary's count of public entries.
    public func publicCountChange(becoming: Visibility?) -> Int {
        becoming.map { ($0 == .public ? 1 : 0) - (visibility == .public ? 1 : 0) } ?? 0
    }

    /// How much deleting the entry moves the diary's count of public entries.
    public var publicCountChangeOnDelete: Int { visibility == .public ? -1 : 0 }
}
