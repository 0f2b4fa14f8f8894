import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel
import Testing

/// When an entry is scheduled, as pure functions: dated in a later whole second than now, and
/// not a draft.
@Suite struct EntryScheduleTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000.7)

    @Test func aDateInALaterSecondIsAhead() {
        #expect(EntrySchedule.isAhead(now + 1, of: now))
        #expect(!EntrySchedule.isAhead(now + 0.2, of: now))  // the same second: due at once
        #expect(!EntrySchedule.isAhead(now, of: now))
        #expect(!EntrySchedule.isAhead(now - 60, of: now))
    }

    @Test func aScheduledEntryIsStoredPrivateWithItsVisibilityBeside() {
        let scheduled = EntryDraft.Stored(.unlisted, draft: false, created: now + 60, now: now)
        #expect(scheduled == EntryDraft.Stored(visibility: .private, draftVisibility: nil, scheduledVisibility: .unlisted))
        #expect(scheduled.isScheduled && !scheduled.isDraft && scheduled.shownVisibility == .unlisted)
        // A draft stays a draft whatever its date.
        #expect(EntryDraft.Stored(.public, draft: true, created: now + 60, now: now).scheduledVisibility == nil)
        #expect(EntryDraft.Stored(.public, draft: false, created: now, now: now) == EntryDraft.Stored(visibility: .public, draftVisibility: nil))
    }

    @Test func changesScheduleAndPublish() {
        let draft = EntryDraft.Stored(.public, draft: true)
        // Publishing a draft dates it now, unless a date comes with it: one ahead schedules it.
        let published = EntryDraft.applying(EntryChanges(draft: false), to: draft, created: now + 3600, now: now)
        #expect(!published.stored.isScheduled && published.stored.visibility == .public && published.created == now)
        let dated = EntryDraft.applying(EntryChanges(created: now + 3600, draft: false), to: draft, created: now - 3600, now: now)
        #expect(dated.stored.isScheduled && dated.stored.shownVisibility == .public && dated.created == now + 3600)
        let scheduled = dated.stored
        // An edit keeps it scheduled; a date behind publishes it; a draft holds it.
        #expect(EntryDraft.applying(EntryChanges(title: "t"), to: scheduled, created: now + 3600, now: now).stored == scheduled)
        #expect(EntryDraft.applying(EntryChanges(created: now - 1), to: scheduled, created: now + 3600, now: now).stored.visibility == .public)
        let held = EntryDraft.applying(EntryChanges(draft: true), to: scheduled, created: now + 3600, now: now).stored
        #expect(held.isDraft && !held.isScheduled && held.shownVisibility == .public)
        // A scheduled entry whose time has passed but was not published yet is published by an edit.
        #expect(EntryDraft.applying(EntryChanges(title: "t"), to: scheduled, created: now - 1, now: now).stored.visibility == .public)
    }
}
