import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

extension SQLiteDiaryStore {
    public func diaries(viewerID: Int64?) throws(StoreError) -> [Diary] {
        try read(.operation("diaries")) { db in
            let statement = try db.cachedStatement(sql: "\(Self.diaryColumns) ORDER BY d.diary_id")
            return try Row.fetchAll(statement, arguments: [viewerID, viewerID]).map(Self.diary(from:))
        }
    }

    public func diary(id: Int64, viewerID: Int64?) throws(StoreError) -> Diary? {
        try read(.diary(id)) { db in
            try Self.fetchDiary(db, id: id, viewerID: viewerID)
        }
    }

    public func createDiary(
        ownerID: Int64, title: String, defaultVisibility: Visibility, idempotency: IdempotencyKey?
    ) throws(StoreError) -> Created<Diary> {
        try write(.operation("new diary of user \(ownerID)")) { db in
            let now = now()
            if let idempotency, let earlier = try Self.resourceCreated(db, by: idempotency, userID: ownerID, resource: .diary, now: now.date) {
                guard let diary = try Self.fetchDiary(db, id: earlier, viewerID: ownerID) else {
                    throw StoreError(.notFound, .createdByKey(.diary(earlier)))
                }
                return Created(diary, replayed: true)
            }
            guard let owner = try Self.userName(db, id: ownerID) else {
                throw StoreError(.notFound, .user(ownerID))
            }
            let id = try Self.insertDiary(db, ownerID: ownerID, title: title, defaultVisibility: defaultVisibility, now: now.text)
            if let idempotency {
                try Self.record(idempotency, userID: ownerID, resource: .diary, id: id, db, now: now.text)
            }
            return Created(Diary(
                id: id, owner: owner, title: title, defaultVisibility: defaultVisibility, entryCount: 0, created: now.date, updated: now.date
            ))
        }
    }

    public func updateDiary(id: Int64, userID: Int64, title: String?, defaultVisibility: Visibility?) throws(StoreError) -> Diary {
        try write(.diary(id)) { db in
            _ = try EntryAccess.ownedDiary(id, stored: Self.diaryOwner(db, diaryID: id), userID: userID) { $0.id }
            let now = now().text
            // Everyone sees a diary's title and default: the change moves what they see too.
            try db.cachedStatement(sql: """
                UPDATE diaries SET title = coalesce(?, title), default_visibility = coalesce(?, default_visibility),
                updated = ?, public_updated = ? WHERE diary_id = ?
                """).execute(arguments: [title, defaultVisibility?.rawValue, now, now, id])
            guard let diary = try Self.fetchDiary(db, id: id, viewerID: userID) else {
                throw StoreError(.notFound, .diary(id))  // Unreachable: checked above, same transaction.
            }
            return diary
        }
    }
}

// MARK: - Rows

extension SQLiteDiaryStore {
    /// A diary with its owner's name, as a viewer (the two arguments, both the viewer's id or
    /// NULL) sees it: its owner counts every entry, anyone else the public ones. The counts are
    /// kept by the schema's triggers.
    static let diaryColumns = """
        SELECT d.diary_id, u.name, d.title, \(EntryAccess.seen("d.entry_count", else: "d.public_count", owner: "d.user_id", viewer: "?")),
        d.created, \(EntryAccess.seen("d.updated", else: "d.public_updated", owner: "d.user_id", viewer: "?")), d.default_visibility
        FROM diaries d JOIN users u ON u.user_id = d.user_id
        """

    static func diary(from row: Row) throws -> Diary {
        try Diary(
            id: row.decode(atIndex: 0),
            owner: row.decode(atIndex: 1),
            title: row.decode(atIndex: 2),
            defaultVisibility: Visibility(stored: row.decode(atIndex: 6), column: "diaries.default_visibility"),
            entryCount: row.decode(atIndex: 3),
            created: date(row.decode(atIndex: 4), column: "diaries.created"),
            updated: date(row.decode(atIndex: 5), column: "diaries.updated"))
    }

    static func fetchDiary(_ db: Database, id: Int64, viewerID: Int64?) throws -> Diary? {
        let statement = try db.cachedStatement(sql: "\(diaryColumns) WHERE d.diary_id = ?")
        return try Row.fetchOne(statement, arguments: [viewerID, viewerID, id]).map(diary(from:))
    }

    static func insertDiary(_ db: Database, ownerID: Int64, title: String, defaultVisibility: Visibility, now: String) throws -> Int64 {
        try db.cachedStatement(sql: """
            INSERT INTO diaries (user_id, title, default_visibility, created, updated, public_updated) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [ownerID, title, defaultVisibility.rawValue, now, now, now])
        return db.lastInsertedRowID
    }

    /// A diary's owner and default visibility, or nil when there is no such diary.
    static func diaryOwner(_ db: Database, diaryID: Int64) throws -> (id: Int64, name: String, defaultVisibility: Visibility)? {
        let statement = try db.cachedStatement(sql: """
            SELECT d.user_id, u.name, d.default_visibility FROM diaries d JOIN users u ON u.user_id = d.user_id WHERE d.diary_id = ?
            """)
        return try Row.fetchOne(statement, arguments: [diaryID]).map { row in
            try (row.decode(atIndex: 0), row.decode(atIndex: 1), Visibility(stored: row.decode(atIndex: 2), column: "diaries.default_visibility"))
        }
    }

    /// Marks the diary as changed now, when one of its entries was written or deleted; for
    /// everyone when `publicly` (the entry was public before or is now), else for its owner only.
    static func touchDiary(_ db: Database, id: Int64, now: String, publicly: Bool) throws {
        try db.cachedStatement(sql: """
            UPDATE diaries SET updated = ?1, public_updated = CASE WHEN ?2 THEN ?1 ELSE public_updated END WHERE diary_id = ?3
            """).execute(arguments: [now, publicly, id])
    }
}
