import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel

extension PostgresDiaryStore {
    /// The id of the resource an earlier request with this key created, or nil for a new key.
    ///
    /// Takes an advisory lock on (user, key) for the rest of the transaction first: retries
    /// racing each other, on any server, run one at a time, and each after the first finds the
    /// key the first recorded (at READ COMMITTED every statement sees what committed before
    /// it). Forgets keys older than `IdempotencyKey.lifetime`; throws `.keyReused` when the key
    /// came with another request or for another kind of resource.
    static func resourceCreated(
        _ session: SQLSession, by idempotency: IdempotencyKey, userID: Int64, resource: KeyedResource, now: Date
    ) throws -> Int64? {
        try session.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", [idempotencyLockClass, "\(userID):\(idempotency.key)"]
        )
        try session.execute("DELETE FROM idempotency_keys WHERE created < $1", [IdempotencyKey.expiry(now: now)])
        let record = try idempotencyRecord(session, for: idempotency, userID: userID, now: now)
        return try idempotency.replayedID(from: record, creating: resource)
    }

    /// The record of this key, unless it is older than `IdempotencyKey.lifetime`: a read, for
    /// reads outside a writing transaction too.
    static func idempotencyRecord(_ session: SQLSession, for idempotency: IdempotencyKey, userID: Int64, now: Date) throws -> IdempotencyRecord? {
        try session.one((String, String, Int64).self, """
            SELECT fingerprint, resource, resource_id FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND created >= $3
            """, [userID, idempotency.key, IdempotencyKey.expiry(now: now)]).map { IdempotencyRecord(fingerprint: $0, resource: $1, resourceID: $2) }
    }

    /// Remembers that this key created `id`, in the transaction that created it.
    static func record(_ idempotency: IdempotencyKey, userID: Int64, resource: KeyedResource, id: Int64, _ session: SQLSession, now: Date) throws {
        try session.execute("""
            INSERT INTO idempotency_keys (user_id, key, fingerprint, resource, resource_id, created) VALUES ($1, $2, $3, $4, $5, $6)
            """, [userID, idempotency.key, idempotency.fingerprint, resource.rawValue, id, now])
    }
}
