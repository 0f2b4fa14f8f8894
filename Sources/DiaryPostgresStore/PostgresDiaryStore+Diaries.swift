import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO
import StoreKernel

extension PostgresDiaryStore {
    public func diaries(viewerID: Int64?) throws(StoreError) -> [Diary] {
        try statement(.operation("diaries")) { session in
            try session.query("\(Self.diaryColumns) ORDER BY d.diary_id", [viewerID]).map(Self.diary(from:))
        }
    }

    public func diary(id: Int64, viewerID: Int64?) throws(StoreError) -> Diary? {
        try statement(.diary(id)) { session in
            try Self.fetchDiary(session, id: id, viewerID: viewerID)
        }
    }

    public func createDiary(
        ownerID: Int64, title: String, defaultVisibility: Visibility, idempotency: IdempotencyKey?
    ) throws(StoreError) -> Created<Diary> {
        try write(.operation("new diary of user \(ownerID)")) { session in
            let now = now()
            if let idempotency, let earlier = try Self.resourceCreated(session, by: idempotency, userID: ownerID, resource: .diary, now: now) {
                guard let diary = try Self.fetchDiary(session, id: earlier, viewerID: ownerID) else {
                    throw StoreError(.notFound, .createdByKey(.diary(earlier)))
                }
                return Created(diary, replayed: true)
            }
            guard let owner = try Self.userName(session, id: ownerID) else {
                throw StoreError(.notFound, .user(ownerID))
            }
            let id = try Self.insertDiary(session, ownerID: ownerID, title: title, defaultVisibility: defaultVisibility, now: now)
            if let idempotency {
                try Self.record(idempotency, userID: ownerID, resource: .diary, id: id, session, now: now)
            }
            return Created(Diary(
                id: id, owner: owner, title: title, defaultVisibility: defaultVisibility, entryCount: 0, created: now, updated: now
            ))
        }
    }

    public func updateDiary(id: Int64, userID: Int64, title: String?, defaultVisibility: Visibility?) throws(StoreError) -> Diary {
        try write(.diary(id)) { session in
            // Locked: a concurrent change of the same diary waits for this one.
            let owner = try session.one((Int64).self, "SELECT user_id FROM diaries WHERE diary_id = $1 FOR UPDATE", [id])
            _ = try EntryAccess.ownedDiary(id, stored: owner, userID: userID) { $0 }
            // Everyone sees a diary's title and default: the change moves what they see too.
            try session.execute("""
                UPDATE diaries SET title = coalesce($1, title), default_visibility = coalesce($2, default_visibility),
                updated = $3, public_updated = $3 WHERE diary_id = $4
                """, [title, defaultVisibility?.rawValue, now(), id])
            guard let diary = try Self.fetchDiary(session, id: id, viewerID: userID) else {
                throw StoreError(.notFound, .diary(id))  // Unreachable: locked above, same transaction.
            }
            return diary
        }
    }
}

// MARK: - Rows

extension PostgresDiaryStore {
    /// A diary with its owner's name, as a viewer (`$1`, or NULL for anyone) sees it: its owner
    /// counts every entry, anyone else the public ones. The counts are kept by `touchDiary` and
    /// `insertEntry` (see `diary_totals`).
    static let diaryColumns = """
        SELECT d.diary_id, u.name, d.title, \(EntryAccess.seen("d.entry_count", else: "d.public_count", owner: "d.user_id", viewer: "$1")),
        d.created, \(EntryAccess.seen("d.updated", else: "d.public_updated", owner: "d.user_id", viewer: "$1")), d.default_visibility
        FROM diary_totals d JOIN users u ON u.user_id = d.user_id
        """

    static func diary(from row: SQLRow) throws -> Diary {
        let (id, owner, title, count, created, updated, defaultVisibility) = try row.decode(
            (Int64, String, String, Int, Date, Date, String).self
        )
        return Diary(
            id: id, owner: owner, title: title, defaultVisibility: try Visibility(stored: defaultVisibility, column: "diaries.default_visibility"),
            entryCount: count, created: created, updated: updated
        )
    }

    static func fetchDiary(_ session: SQLSession, id: Int64, viewerID: Int64?) throws -> Diary? {
        try session.query("\(diaryColumns) WHERE d.diary_id = $2", [viewerID, id]).first.map(diary(from:))
    }

    static func insertDiary(_ session: SQLSession, ownerID: Int64, title: String, defaultVisibility: Visibility, now: Date) throws -> Int64 {
        let id = try session.one((Int64).self, """
            INSERT INTO diaries (user_id, title, default_visibility, created, updated, public_updated) VALUES ($1, $2, $3, $4, $4, $4)
            RETURNING diary_id
            """, [ownerID, title, defaultVisibility.rawValue, now])
        guard let id else { throw StoreError(.unavailable, .user(ownerID), detail: "INSERT returned no id") }
        return id
    }

    /// A diary's owner and default visibility, or nil when there is no such diary.
    static func diaryOwner(_ session: SQLSession, diaryID: Int64) throws -> (id: Int64, name: String, defaultVisibility: Visibility)? {
        guard let (id, name, text) = try session.one((Int64, String, String).self, """
            SELECT d.user_id, u.name, d.default_visibility FROM diaries d JOIN users u ON u.user_id = d.user_id WHERE d.diary_id = $1
            """, [diaryID]) else { return nil }
        return (id, name, try Visibility(stored: text, column: "diaries.default_visibility"))
    }

    /// Marks the diary as changed now, when one of its entries was written or deleted; for
    /// everyone when `publicly` (the entry was public before or is now), else for its owner only;
    /// and adds `entries` to its entry count and `publicEntries` to its public count. All of it
    /// goes to the diary's row of `diary_activity` for the session's slot, not to the diary's
    /// own row, which concurrent writers would queue on (see postgres-v3.sql).
    static func touchDiary(
        _ session: SQLSession, id: Int64, now: Date, publicly: Bool, entries: Int = 0, publicEntries: Int = 0
    ) throws {
        try session.execute("""
            INSERT INTO diary_activity AS a (diary_id, slot, entry_count, public_count, updated, public_updated)
            VALUES ($3, $6, $4, $5, $1, CASE WHEN $2 THEN $1::timestamptz END)
            ON CONFLICT (diary_id, slot) DO UPDATE SET \(addActivity)
            """, [now, publicly, id, entries, publicEntries, session.slot])
    }

    /// What a write adds to a row `a` of `diary_activity` that exists (`excluded`: what it would
    /// have inserted), for `INSERT … ON CONFLICT (diary_id, slot) DO UPDATE SET`: the counts
    /// added, the times moved forward (greatest() skips a NULL, so a write no one else sees
    /// leaves `public_updated` alone, and a seeded entry's older date moves nothing back).
    static let addActivity = """
        entry_count = a.entry_count + excluded.entry_count, public_count = a.public_count + excluded.public_count,
        updated = greatest(a.updated, excluded.updated), public_updated = greatest(a.public_updated, excluded.public_updated)
        """
}
