import DiaryAPI
import DiaryStore

/// The change feed's rules, written once; each engine keeps the sequences and reads the rows
/// (its schema: SQLite's `schema-v5.sql`, PostgreSQL's `postgres-v6.sql`).
///
/// - **Audiences.** Every change is numbered in the sequence of each audience that sees it:
///   the public (audience 0) for a change to what the public lists (a public entry created,
///   edited or deleted; an entry made public or no longer public), and the owner's (audience =
///   their user id) for every change to their entries. The engine's triggers number them in the
///   writing transaction, one counter row per audience, so positions follow commit order.
/// - **One row per entry and audience**, at its latest position: the feed sends each entry as
///   it is now, so an older change to it has nothing left to say.
/// - **What a reader gets** (`page`): with a token, their own sequence after their own
///   position, then the public sequence after their public position. Each row is the entry whole when the
///   reader may list it now (public, or theirs), else a tombstone. Nothing in either sequence,
///   nor its positions, moves when someone else changes an entry the public does not see.
/// - **Tombstones kept**: the newest `tombstonesKept` per audience; older ones are dropped by
///   the write that makes a new one, which raises the audience's horizon. A cursor short of its
///   horizon (but not at the beginning) is `.expired`: it may have missed a dropped tombstone.
///   Only the audience's own changes move its horizon, so that too shows nothing of others.
public enum ChangeFeed {
    /// The audience of changes anyone sees.
    public static let publicAudience: Int64 = 0

    /// How many tombstones each audience keeps: the value the migrations write into the
    /// `change_retention` table, which the engines' triggers read.
    public static let tombstonesKept = 10_000

    /// One row of an audience's sequence as the engine read it, with the entry as it is now.
    public struct Row: Sendable {
        public var position: Int64
        public var entryID: Int64
        /// The entry whole, nil when it was deleted.
        public var entry: Entry?
        /// The owner of the entry's diary, nil when it was deleted.
        public var ownerID: Int64?

        public init(position: Int64, entryID: Int64, entry: Entry?, ownerID: Int64?) {
            self.position = position
            self.entryID = entryID
            self.entry = entry
            self.ownerID = ownerID
        }
    }

    /// The page `viewerID` reads after `since` (nil: the beginning): `horizon(audience)` is the
    /// highest position of a tombstone the engine dropped (0: none), and `rows(audience, after,
    /// limit)` up to `limit` rows after a position, in order; both in one read transaction.
    public static func page(
        since: ChangeCursor?, viewerID: Int64?, limit: Int,
        horizon: (_ audience: Int64) throws -> Int64,
        rows: (_ audience: Int64, _ after: Int64, _ limit: Int) throws -> [Row]
    ) throws -> ChangePage {
        let cursor = ChangeCursor(publicPosition: since?.publicPosition ?? 0, ownPosition: viewerID.map { _ in since?.ownPosition ?? 0 })
        try checkNotExpired(cursor.publicPosition, horizon: horizon(publicAudience))
        if let viewerID, let own = cursor.ownPosition {
            try checkNotExpired(own, horizon: horizon(viewerID))
        }
        // The reader's own changes first (a replica has its owner's diaries from the first
        // page), then the public ones, each sequence in order.
        var next = cursor
        var changes: [EntryChange] = []
        var sent = Set<Int64>()
        var room = limit
        var more = false
        if let viewerID, let own = cursor.ownPosition {
            let ownRows = try rows(viewerID, own, limit + 1)
            more = ownRows.count > limit
            for row in ownRows.prefix(limit) {
                next.ownPosition = row.position
                if sent.insert(row.entryID).inserted { changes.append(change(row, viewerID: viewerID)) }
            }
            room -= min(ownRows.count, limit)
        }
        if !more {
            let publicRows = try rows(publicAudience, cursor.publicPosition, room + 1)
            more = publicRows.count > room
            for row in publicRows.prefix(room) {
                next.publicPosition = row.position
                if sent.insert(row.entryID).inserted { changes.append(change(row, viewerID: viewerID)) }
            }
        }
        return ChangePage(changes: changes, next: next, more: more)
    }

    /// A position at 0 has nothing yet, so it misses nothing; any other short of the horizon may
    /// have missed a dropped tombstone.
    static func checkNotExpired(_ position: Int64, horizon: Int64) throws(StoreError) {
        if position > 0 && position < horizon {
            throw StoreError(.expired, .operation("cursor position \(position)"))
        }
    }

    /// The row as `viewerID` sees it now: whole when they may list it, else a tombstone, which
    /// is the same for a deleted entry and one made private, unlisted, a draft or someone else's.
    static func change(_ row: Row, viewerID: Int64?) -> EntryChange {
        guard let entry = row.entry, let ownerID = row.ownerID, EntryAccess.mayList(entry, ownerID: ownerID, viewerID: viewerID) else {
            return .deleted(entryID: row.entryID)
        }
        return .entry(entry)
    }
}
