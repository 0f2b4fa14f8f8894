import DiaryStore
import Foundation

/// What an idempotency key can have created; the `resource` column's values.
public enum KeyedResource: String, Sendable {
    case entry, diary
    /// An uploaded image; the record's id is the image's row, not its public id.
    case media
}

/// A key's record as an engine read it: the request's fingerprint, what it created, and its id.
public struct IdempotencyRecord: Sendable {
    public var fingerprint: String
    public var resource: String
    public var resourceID: Int64

    public init(fingerprint: String, resource: String, resourceID: Int64) {
        self.fingerprint = fingerprint
        self.resource = resource
        self.resourceID = resourceID
    }
}

extension IdempotencyKey {
    /// Records created before this are forgotten (each engine deletes them before it reads one).
    public static func expiry(now: Date) -> Date {
        now.addingTimeInterval(-lifetime)
    }

    /// The id to answer again for a retry of this key's request, from the record the engine
    /// read after forgetting expired ones (nil: a new key, so nil). `.keyReused` when the key
    /// came with another request or for another kind of resource.
    public func replayedID(from record: IdempotencyRecord?, creating resource: KeyedResource) throws(StoreError) -> Int64? {
        guard let record else { return nil }
        guard record.fingerprint == fingerprint, record.resource == resource.rawValue else {
            throw StoreError(.keyReused, .idempotencyKey)
        }
        return record.resourceID
    }
}
