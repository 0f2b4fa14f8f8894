import DiaryAPI
import DiaryStore

/// Who may see an uploaded image, and what a user may keep, written once for both engines.
///
/// - Its owner always sees it.
/// - Anyone else sees it when they may read at least one of the owner's entries whose body
///   links to it (`MediaLinks`, kept per entry in `entry_media` by the transaction that writes
///   the body). Only the owner's entries count: someone who saw an image may not publish it
///   by linking it from an entry of their own.
/// - Entries others may read are the public and unlisted ones (`EntryAccess.mayRead`), so an
///   image such an entry links to is anyone's, and caches may keep it.
public enum MediaAccess {
    /// SQL that is true when an image row `media` is linked from an entry of its owner that
    /// anyone may read. The same text on SQLite and PostgreSQL: no placeholder, no dialect.
    public static func linkedFromReadableEntry(media: String = "m") -> String {
        "EXISTS (SELECT 1 \(ownerLinks(media: media)) AND e.visibility <> 'private')"
    }

    /// SQL from `FROM` on: the links `l` to an image row `media` from entries `e` of its owner,
    /// whatever they are; only these links count (someone else linking an image shows it to nobody).
    public static func ownerLinks(media: String = "m") -> String {
        """
            FROM entry_media l JOIN entries e ON e.entry_id = l.entry_id JOIN diaries d ON d.diary_id = e.diary_id \
            WHERE l.media_id = \(media).media_id AND d.user_id = \(media).user_id
            """
    }

    /// SQL that is an image row `media`'s bytes when `viewer` (a placeholder of the engine's
    /// dialect, bound to the viewer's user id, or NULL for anyone) may see it, else NULL:
    /// `maySee` in SQL, so that a refusal reads only the columns that decide it, never the
    /// image (its overflow pages on SQLite, its TOAST on PostgreSQL).
    public static func dataIfVisible(viewer: String, media: String = "m") -> String {
        "CASE WHEN \(media).user_id = \(viewer) OR \(linkedFromReadableEntry(media: media)) THEN \(media).data END"
    }

    /// Whether `viewerID` (nil: anyone) may see an image of `ownerID`, given whether an entry
    /// anyone may read links to it.
    public static func maySee(ownerID: Int64, viewerID: Int64?, linkedFromReadableEntry: Bool) -> Bool {
        ownerID == viewerID || linkedFromReadableEntry
    }

    /// The fewest bytes a kept image takes (a JPEG or PNG of one pixel takes more): what an
    /// upload is checked against before it is processed and its size is known.
    public static let smallestImage = 1

    /// Throws `.quotaExceeded` when `adding` bytes to the `used` bytes a user's images take
    /// already would pass `quota`.
    public static func checkQuota(used: Int64, adding: Int, quota: Int64) throws(StoreError) {
        let (total, overflow) = used.addingReportingOverflow(Int64(adding))
        guard !overflow, total <= quota else {
            throw StoreError(.quotaExceeded, .operation("this upload of \(adding) bytes, with \(used) bytes stored,"))
        }
    }
}
