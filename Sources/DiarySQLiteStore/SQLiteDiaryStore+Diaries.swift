import DiaryAPI
import DiaryStore
import Foundation
import GRDB

extension SQLiteDiaryStore {
    public func diaries() throws(StoreError) -> [Diary] {
        try read(.operation("diaries")) { db in
            let statement = try db.cachedStatement(sql: "\(Self.diaryColumns) ORDER BY d.diary_id")
            return try Row.fetchAll(statement).map(Self.diary(from:))
        }
    }

    public func diary(id: Int64) throws(StoreError) -> Diary? {
        try read(.diary(id)) { db in
            try Self.fetchDiary(db, id: id)
        }
    }

    public func createDiary(ownerID: Int64, title: String, idempotency: IdempotencyKey?) throws(StoreError) -> Created<Diary> {
        try write(.operation("new diary of user \(ownerID)")) { db in
            let now = now()
            if let idempotency, let earlier = try Self.resourceCreated(db, by: idempotency, userID: ownerID, resource: .diary, now: now.date) {
                guard let diary = try Self.fetchDiary(db, id: earlier) else {
                    throw StoreError(.notFound, .createdByKey(.diary(earlier)))
                }
                return Created(diary, replayed: true)
            }
            guard let owner = try Self.userName(db, id: ownerID) else {
                throw StoreError(.notFound, .user(ownerID))
            }
            let id = try Self.insertDiary(db, ownerID: ownerID, title: title, now: now.text)
            if let idempotency {
                try Self.record(idempotency, userID: ownerID, resource: .diary, id: id, db, now: now.text)
            }
            return Created(Diary(id: id, owner: owner, title: title, entryCount: 0, created: now.date, updated: now.date))
        }
    }
}

// MARK: - Rows

extension SQLiteDiaryStore {
    /// A diary with its owner's name; `entry_count` is kept by the schema's triggers.
    static let diaryColumns = """
        SELECT d.diary_id, u.name, d.title, d.entry_count, d.created, d.updated
        FROM diaries d JOIN users u ON u.user_id = d.user_id
        """

    static func diary(from row: Row) throws -> Diary {
        try Diary(
            id: row.decode(atIndex: 0),
            owner: row.decode(atIndex: 1),
            title: row.decode(atIndex: 2),
            entryCount: row.decode(atIndex: 3),
            created: date(row.decode(atIndex: 4), column: "diaries.created"),
            updated: date(row.decode(atIndex: 5), column: "diaries.updated"))
    }

    static func fetchDiary(_ db: Database, id: Int64) throws -> Diary? {
        let statement = try db.cachedStatement(sql: "\(diaryColumns) WHERE d.diary_id = ?")
        return try Row.fetchOne(statement, arguments: [id]).map(diary(from:))
    }

    static func insertDiary(_ db: Database, ownerID: Int64, title: String, now: String) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO diaries (user_id, title, created, updated) VALUES (?, ?, ?, ?)")
            .execute(arguments: [ownerID, title, now, now])
        return db.lastInsertedRowID
    }

    /// A diary's owner, or nil when there is no such diary.
    static func diaryOwner(_ db: Database, diaryID: Int64) throws -> (id: Int64, name: String)? {
        let statement = try db.cachedStatement(sql: """
            SELECT d.user_id, u.name FROM diaries d JOIN users u ON u.user_id = d.user_id WHERE d.diary_id = ?
            """)
        return try Row.fetchOne(statement, arguments: [diaryID]).map { row in
            try (row.decode(atIndex: 0), row.decode(atIndex: 1))
        }
    }

    /// Marks the diary as changed now, when one of its entries was written or deleted.
    static func touchDiary(_ db: Database, id: Int64, now: String) throws {
        try db.cachedStatement(sql: "UPDATE diaries SET updated = ? WHERE diary_id = ?").execute(arguments: [now, id])
    }
}
