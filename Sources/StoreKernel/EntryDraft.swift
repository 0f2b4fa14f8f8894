import DiaryAPI
import DiaryStore
import Foundation

/// Drafts, written as the visibility rule they are: a draft is stored as a private entry
/// (`entries.visibility = 'private'`), with the visibility it will have once published kept
/// beside it (`entries.draft_visibility`, NULL for an entry that is not a draft). So every rule
/// that hides a private entry hides a draft, with no second condition to forget: `EntryAccess`,
/// the lists of `EntryListSQL`, search and its indexes, tags, counts, `updated` as others see
/// it, exports, pages and feeds. Only its owner sees it, and sees it as a draft with the
/// visibility it will take.
///
/// - Publishing (`draft` false on a draft) gives the entry the visibility it waited with (or
///   the one sent with it) and its publication time: now, unless a `created` comes with it.
/// - A published entry made a draft again becomes private to others until published again.
public enum EntryDraft {
    /// What an entry is stored as: its `visibility` column and its `draft_visibility` column.
    public struct Stored: Sendable, Equatable {
        public var visibility: Visibility
        public var draftVisibility: Visibility?

        public init(visibility: Visibility, draftVisibility: Visibility?) {
            self.visibility = visibility
            self.draftVisibility = draftVisibility
        }

        /// An entry written with `visibility`, as a draft or not.
        public init(_ visibility: Visibility, draft: Bool) {
            self.init(visibility: draft ? .private : visibility, draftVisibility: draft ? visibility : nil)
        }

        public var isDraft: Bool { draftVisibility != nil }

        /// The visibility its owner sees: the one it has, or for a draft the one it will have.
        public var shownVisibility: Visibility { draftVisibility ?? visibility }
    }

    /// An entry's stored columns after `changes`, and its new `created` (nil: kept): the one
    /// given, or `now` when the change publishes a draft.
    public static func applying(_ changes: EntryChanges, to stored: Stored, now: Date) -> (stored: Stored, created: Date?) {
        let visibility = changes.visibility ?? stored.shownVisibility
        let draft = changes.draft ?? stored.isDraft
        let publishes = stored.isDraft && !draft
        return (Stored(visibility, draft: draft), changes.created ?? (publishes ? now : nil))
    }
}

extension Entry {
    /// The entry its owner sees of stored columns: a draft's visibility is the one it waits with.
    public func shown(_ stored: EntryDraft.Stored) -> Entry {
        var entry = self
        entry.visibility = stored.shownVisibility
        entry.draft = stored.isDraft
        return entry
    }
}

extension EntryDraft.Stored {
    /// The two columns read back (`entries.visibility`, `entries.draft_visibility`).
    public init(storedVisibility: String, draftVisibility: String?) throws(CorruptValue) {
        let draft: Visibility?
        if let draftVisibility {
            draft = try Visibility(stored: draftVisibility, column: "entries.draft_visibility")
        } else {
            draft = nil
        }
        self.init(visibility: try Visibility(stored: storedVisibility, column: "entries.visibility"), draftVisibility: draft)
    }
}
