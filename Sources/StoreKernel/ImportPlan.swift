import DiaryAPI
import DiaryStore
import Foundation

/// What an import writes, decided from what the engine looked up first, so that each
/// engine's `importEntries` is "look up, then write the plan" and the rules are written once:
///
/// - Every entry must be the caller's (`author` their name), else `.forbidden`.
/// - An entry whose id is one of the caller's entries is skipped: it was read in before.
/// - Any other keeps its id when the id is above every id given out so far, so an export read
///   into a new database keeps every id; otherwise it gets the next new id, so an id is never
///   given out twice and another user's entry, private or not, shows nothing of itself (its id
///   is treated as one deleted long ago).
/// - A diary that does not exist is created for the caller with its id, titled as a first
///   diary and dated like its first entry, unless that entry is not public: then now, since
///   the date must not show. Another user's diary is `.forbidden`.
/// - An entry without a visibility takes its diary's default (public for a diary made here).
/// - A draft (`"draft": true`) stays one, stored as `EntryDraft` says.
public struct ImportPlan: Sendable, Equatable {
    /// The entries to insert, in order, each with the id it is written with.
    public var inserts: [Insert] = []
    public var skipped = 0
    /// The diaries written to, by id: how many entries, and how many public ones, they got.
    public var touched: [DiaryAdditions] = []

    public var result: ImportResult { ImportResult(created: inserts.count, skipped: skipped) }

    public struct Insert: Sendable, Equatable {
        /// The entry as written: its `id` the one kept or the new one, its tags as imported.
        public var entry: Entry
        /// The visibility as stored: private for a draft or a scheduled entry (`EntryDraft`).
        public var visibility: Visibility
        /// A draft's visibility once published; nil for an entry that is not a draft.
        public var draftVisibility: Visibility? = nil
        /// A scheduled entry's visibility at its time (`EntrySchedule`); nil when not scheduled.
        public var scheduledVisibility: Visibility? = nil
        /// True when `entry.id` is the imported one, false when it is new.
        public var keepsID: Bool
        /// The diary to create first, when `entry.diaryID` does not exist yet.
        public var newDiary: NewDiary?
    }

    public struct NewDiary: Sendable, Equatable {
        public var title: String
        /// Its `created`, `updated` and `public_updated`.
        public var since: Date

        public init(title: String, since: Date) {
            self.title = title
            self.since = since
        }
    }

    public struct DiaryAdditions: Sendable, Equatable {
        public var diaryID: Int64
        public var entries: Int
        public var publicEntries: Int

        public init(diaryID: Int64, entries: Int, publicEntries: Int) {
            self.diaryID = diaryID
            self.entries = entries
            self.publicEntries = publicEntries
        }
    }

    /// A diary's owner and default visibility, as the engine looked it up.
    public struct DiaryOwner: Sendable {
        public var ownerID: Int64
        public var defaultVisibility: Visibility

        public init(ownerID: Int64, defaultVisibility: Visibility) {
            self.ownerID = ownerID
            self.defaultVisibility = defaultVisibility
        }
    }
}
