import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

extension SQLiteDiaryStore {
    /// The id of the resource an earlier request with this key created, or nil for a new key.
    /// Forgets keys older than `IdempotencyKey.lifetime` first; throws `.keyReused` when the
    /// key came with another request or for another kind of resource.
    static func resourceCreated(
        _ db: Database, by idempotency: IdempotencyKey, userID: Int64, resource: KeyedResource, now: Date
    ) throws -> Int64? {
        let expiry = RFC3339.string(from: IdempotencyKey.expiry(now: now))
        try db.cachedStatement(sql: "DELETE FROM idempotency_keys WHERE created < ?").execute(arguments: [expiry])
        let record = try idempotencyRecord(db, for: idempotency, userID: userID, now: now)
        return try idempotency.replayedID(from: record, creating: resource)
    }

    /// The record of this key, unless it is older than `IdempotencyKey.lifetime`: a read, for
    /// read transactions too (which cannot forget the expired ones).
    static func idempotencyRecord(_ db: Database, for idempotency: IdempotencyKey, userID: Int64, now: Date) throws -> IdempotencyRecord? {
        let statement = try db.cachedStatement(sql: """
            SELECT fingerprint, resource, resource_id FROM idempotency_keys WHERE user_id = ? AND key = ? AND created >= ?
            """)
        let expiry = RFC3339.string(from: IdempotencyKey.expiry(now: now))
        return try Row.fetchOne(statement, arguments: [userID, idempotency.key, expiry]).map { row in
            try IdempotencyRecord(fingerprint: row.decode(atIndex: 0), resource: row.decode(atIndex: 1), resourceID: row.decode(atIndex: 2))
        }
    }

    /// Remembers that this key created `id`, in the transaction that created it.
    static func record(_ idempotency: IdempotencyKey, userID: Int64, resource: KeyedResource, id: Int64, _ db: Database, now: String) throws {
        try db.cachedStatement(sql: """
            INSERT INTO idempotency_keys (user_id, key, fingerprint, resource, resource_id, created) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [userID, idempotency.key, idempotency.fingerprint, resource.rawValue, id, now])
    }
}
