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
    /// What an entry is stored as: its `visibility`, `draft_visibility` and
    /// `scheduled_visibility` columns. A draft and a scheduled entry are both stored private,
    /// the visibility they will take kept beside it; they differ in what publishes them: the
    /// owner, or the clock (`EntrySchedule`).
    public struct Stored: Sendable, Equatable {
        public var visibility: Visibility
        public var draftVisibility: Visibility?
        /// A scheduled entry's visibility once its `created` is reached; nil when not scheduled.
        public var scheduledVisibility: Visibility?

        public init(visibility: Visibility, draftVisibility: Visibility?, scheduledVisibility: Visibility? = nil) {
            self.visibility = visibility
            self.draftVisibility = draftVisibility
            self.scheduledVisibility = scheduledVisibility
        }

        /// An entry written with `visibility`, as a draft, scheduled, or neither. A draft stays a
        /// draft whatever its date: only publishing it can schedule it.
        public init(_ visibility: Visibility, draft: Bool, scheduled: Bool = false) {
            let waits = draft || scheduled
            self.init(
                visibility: waits ? .private : visibility, draftVisibility: draft ? visibility : nil,
                scheduledVisibility: scheduled && !draft ? visibility : nil
            )
        }

        /// An entry written with `visibility` and `created` at `now`: scheduled when it is not a
        /// draft and `created` is ahead of `now` (`EntrySchedule.isAhead`).
        public init(_ visibility: Visibility, draft: Bool, created: Date, now: Date) {
            self.init(visibility, draft: draft, scheduled: EntrySchedule.isAhead(created, of: now))
        }

        public var isDraft: Bool { draftVisibility != nil }

        public var isScheduled: Bool { scheduledVisibility != nil }

        /// The visibility its owner sees: the one it has, or the one it will have.
        public var shownVisibility: Visibility { draftVisibility ?? scheduledVisibility ?? visibility }
    }

    /// An entry's stored columns after `changes`, and its new `created` (nil: kept, as
    /// `storedCreated`): the one given, or `now` when the change publishes a draft. The result
    /// is scheduled when it is no draft and its `created`, new or kept, is ahead of `now`: so
    /// publishing a draft dated ahead schedules it, and moving a scheduled entry's date back
    /// publishes it.
    public static func applying(
        _ changes: EntryChanges, to stored: Stored, created storedCreated: Date, now: Date
    ) -> (stored: Stored, created: Date?) {
        let visibility = changes.visibility ?? stored.shownVisibility
        let draft = changes.draft ?? stored.isDraft
        let publishes = stored.isDraft && !draft
        let created = changes.created ?? (publishes ? now : nil)
        return (Stored(visibility, draft: draft, created: created ?? storedCreated, now: now), created)
    }
}

extension Entry {
    /// The entry its owner sees of stored columns: a draft's or a scheduled entry's visibility
    /// is the one it waits with.
    public func shown(_ stored: EntryDraft.Stored) -> Entry {
        var entry = self
        entry.visibility = stored.shownVisibility
        entry.draft = stored.isDraft
        entry.scheduled = stored.isScheduled
        return entry
    }
}

extension EntryDraft.Stored {
    /// The three columns read back (`entries.visibility`, `entries.draft_visibility`,
    /// `entries.scheduled_visibility`).
    public init(storedVisibility: String, draftVisibility: String?, scheduledVisibility: String?) throws(CorruptValue) {
        func waiting(_ text: String?, column: String) throws(CorruptValue) -> Visibility? {
            guard let text else { return nil }
            return try Visibility(stored: text, column: column)
        }
        self.init(
            visibility: try Visibility(stored: storedVisibility, column: "entries.visibility"),
            draftVisibility: try waiting(draftVisibility, column: "entries.draft_visibility"),
            scheduledVisibility: try waiting(scheduledVisibility, column: "entries.scheduled_visibility")
        )
    }
}
