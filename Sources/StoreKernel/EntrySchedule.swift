import Foundation

/// Scheduled posts, the rule once for both engines: an entry written with a `created` ahead of
/// the store's clock is scheduled. It is stored as a draft is (`EntryDraft.Stored`: private,
/// its visibility kept in `scheduled_visibility`), so that before its time every rule that keeps
/// a private entry from others keeps it from them: lists, search and its public index, tags,
/// kept counts, `public_updated`, pages, feeds, the change feed, reads by id.
///
/// At its time it is *published*: the store's `publishDue` rewrites every due entry as the
/// ordinary entry it waited to be, in one write transaction, and whoever reads next sees it.
/// Nothing reads "is it due yet?" at query time, so no list or count has a second condition
/// and the hot queries are those of before. A published entry's `updated` becomes the later of
/// its `updated` and its `created` (its publication time), and its diary's `public_updated` the
/// same: others' `Last-Modified` says when it appeared, on every server alike. What makes the publication happen at the time, with
/// no user write, is the server: before it answers a request it compares its clock with the
/// store's `nextPublication` (kept beside the data version it reads anyway) and runs
/// `publishDue` first when the time has come (`ScheduledPublication` in DiaryServer).
public enum EntrySchedule {
    /// Whether an entry dated `created` is scheduled when written at `now`: dated in a later
    /// whole second than `now` (the store keeps whole seconds, so a date in the current second
    /// is due at once).
    public static func isAhead(_ created: Date, of now: Date) -> Bool {
        wholeSeconds(created) > wholeSeconds(now)
    }

    static func wholeSeconds(_ date: Date) -> Double {
        date.timeIntervalSince1970.rounded(.down)
    }
}
