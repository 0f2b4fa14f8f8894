import DiaryAPI
import Foundation

/// Everything the server keeps. The handlers depend on this protocol only, so that a store on
/// another database can replace the SQLite one without touching them.
///
/// Each method is one transaction: the ownership check and the change it guards happen
/// together, and a method that throws has changed nothing.
public protocol DiaryStore: Sendable {
    // MARK: Users

    /// Creates a user with the token's hash and a first diary titled "NAME's diary".
    /// Throws `.conflict` when the name is taken.
    func createUser(name: String, tokenHash: TokenHash) throws(StoreError) -> User
    /// Replaces the user's token: the old one stops working at once.
    func replaceToken(userName: String, tokenHash: TokenHash) throws(StoreError) -> User
    /// The user holding the token, or nil.
    func user(tokenHash: TokenHash) throws(StoreError) -> User?

    // MARK: Diaries

    func diaries() throws(StoreError) -> [Diary]
    func diary(id: Int64) throws(StoreError) -> Diary?
    /// Creates a diary; with a key seen before, answers the diary that key created instead.
    /// Throws `.keyReused` when the key came with another request.
    func createDiary(ownerID: Int64, title: String, idempotency: IdempotencyKey?) throws(StoreError) -> Created<Diary>

    // MARK: Entries

    /// A page of entries, newest first (`created` descending, then `entry_id` descending);
    /// one diary's when `diaryID` is set (`.notFound` when that diary does not exist).
    func entries(diaryID: Int64?, page: PageRequest) throws(StoreError) -> EntryPage
    func entry(id: Int64) throws(StoreError) -> Entry?
    /// When the entries of one diary, or of all when nil, last changed (written or deleted);
    /// nil when there is no such diary, or no diary at all.
    func lastModified(diaryID: Int64?) throws(StoreError) -> Date?
    /// Writes an entry in `diaryID`, or when nil in the user's first diary (created if they have none).
    /// Throws `.notFound` for an unknown diary and `.forbidden` for someone else's. With a key
    /// seen before, answers the entry that key created instead (`.keyReused` for another request).
    func createEntry(userID: Int64, diaryID: Int64?, title: String, body: String, idempotency: IdempotencyKey?) throws(StoreError) -> Created<Entry>
    /// Changes the fields that are not nil, if `precondition` holds for the entry as stored
    /// (`.preconditionFailed` otherwise). Throws `.notFound` or `.forbidden`.
    func updateEntry(id: Int64, userID: Int64, title: String?, body: String?, precondition: EntryPrecondition?) throws(StoreError) -> Entry
    /// Deletes the entry if `precondition` holds for it. Throws `.notFound`, `.forbidden` or `.preconditionFailed`.
    func deleteEntry(id: Int64, userID: Int64, precondition: EntryPrecondition?) throws(StoreError)
}

/// A check on an entry as stored, made in the same transaction as the change it guards
/// (an `If-Match` header compares the entry's ETag).
public typealias EntryPrecondition = @Sendable (Entry) -> Bool

/// An `Idempotency-Key` with a fingerprint of the request it came with: a retry must carry both.
public struct IdempotencyKey: Sendable, Equatable {
    /// How long a key is remembered.
    public static let lifetime: TimeInterval = 24 * 60 * 60

    public var key: String
    public var fingerprint: String

    public init(key: String, fingerprint: String) {
        self.key = key
        self.fingerprint = fingerprint
    }
}

/// A resource a create call answered, and whether an earlier call with the same key made it.
public struct Created<Value: Sendable>: Sendable {
    public var value: Value
    public var replayed: Bool

    public init(_ value: Value, replayed: Bool = false) {
        self.value = value
        self.replayed = replayed
    }
}

// MARK: - Calls without keys or preconditions

extension DiaryStore {
    public func createEntry(userID: Int64, diaryID: Int64?, title: String, body: String) throws(StoreError) -> Entry {
        try createEntry(userID: userID, diaryID: diaryID, title: title, body: body, idempotency: nil).value
    }

    public func createDiary(ownerID: Int64, title: String) throws(StoreError) -> Diary {
        try createDiary(ownerID: ownerID, title: title, idempotency: nil).value
    }

    public func updateEntry(id: Int64, userID: Int64, title: String?, body: String?) throws(StoreError) -> Entry {
        try updateEntry(id: id, userID: userID, title: title, body: body, precondition: nil)
    }

    public func deleteEntry(id: Int64, userID: Int64) throws(StoreError) {
        try deleteEntry(id: id, userID: userID, precondition: nil)
    }
}

/// Why a store call failed, with what it was about.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The named thing does not exist.
        case notFound
        /// It exists but belongs to another user.
        case forbidden
        /// A unique value (a user name) is taken.
        case conflict
        /// The database cannot take the change now: disk full, read-only file, I/O error, busy too long.
        case unavailable
        /// The caller's precondition does not hold for the stored value: it changed since they read it.
        case preconditionFailed
        /// An idempotency key came again with a different request.
        case keyReused
    }

    public var kind: Kind
    /// What the error is about, for a person: "entry 42", "diary 3", "user alice".
    public var subject: String
    /// More context, never shown to API clients when `kind` is `.unavailable`.
    public var detail: String

    public init(_ kind: Kind, subject: String, detail: String = "") {
        self.kind = kind
        self.subject = subject
        self.detail = detail
    }

    public var description: String {
        switch kind {
        case .notFound: "\(subject) does not exist"
        case .forbidden: "\(subject) belongs to another user"
        case .conflict: "\(subject) already exists"
        case .unavailable: "the database cannot be written now (\(subject)): \(detail)"
        case .preconditionFailed: "\(subject) has changed since it was read"
        case .keyReused: "\(subject) was already used for a different request"
        }
    }
}
