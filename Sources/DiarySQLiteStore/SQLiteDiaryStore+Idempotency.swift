import DiaryAPI
import DiaryStore
import Foundation
import GRDB

extension SQLiteDiaryStore {
    /// What an idempotency key can have created; the `resource` column's values.
    enum KeyedResource: String {
        case entry, diary
    }

    /// The id of the resource an earlier request with this key created, or nil for a new key.
    /// Forgets keys older than `IdempotencyKey.lifetime` first; throws `.keyReused` when the
    /// key came with another request or for another kind of resource.
    static func resourceCreated(
        _ db: Database, by idempotency: IdempotencyKey, userID: Int64, resource: KeyedResource, now: Date
    ) throws -> Int64? {
        let cutoff = RFC3339.string(from: now.addingTimeInterval(-IdempotencyKey.lifetime))
        try db.cachedStatement(sql: "DELETE FROM idempotency_keys WHERE created < ?").execute(arguments: [cutoff])
        let statement = try db.cachedStatement(sql: """
            SELECT fingerprint, resource, resource_id FROM idempotency_keys WHERE user_id = ? AND key = ?
            """)
        guard let row = try Row.fetchOne(statement, arguments: [userID, idempotency.key]) else { return nil }
        let (fingerprint, kind, id): (String, String, Int64) = try (row.decode(atIndex: 0), row.decode(atIndex: 1), row.decode(atIndex: 2))
        guard fingerprint == idempotency.fingerprint, kind == resource.rawValue else {
            throw StoreError(.keyReused, .idempotencyKey)
        }
        return id
    }

    /// Remembers that this key created `id`, in the transaction that created it.
    static func record(_ idempotency: IdempotencyKey, userID: Int64, resource: KeyedResource, id: Int64, _ db: Database, now: String) throws {
        try db.cachedStatement(sql: """
            INSERT INTO idempotency_keys (user_id, key, fingerprint, resource, resource_id, created) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [userID, idempotency.key, idempotency.fingerprint, resource.rawValue, id, now])
    }
}
