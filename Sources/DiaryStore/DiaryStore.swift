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
    func createDiary(ownerID: Int64, title: String) throws(StoreError) -> Diary

    // MARK: Entries

    /// A page of entries, newest first (`created` descending, then `entry_id` descending);
    /// one diary's when `diaryID` is set (`.notFound` when that diary does not exist).
    func entries(diaryID: Int64?, page: PageRequest) throws(StoreError) -> EntryPage
    func entry(id: Int64) throws(StoreError) -> Entry?
    /// Writes an entry in `diaryID`, or when nil in the user's first diary (created if they have none).
    /// Throws `.notFound` for an unknown diary and `.forbidden` for someone else's.
    func createEntry(userID: Int64, diaryID: Int64?, title: String, body: String) throws(StoreError) -> Entry
    /// Changes the fields that are not nil. Throws `.notFound` or `.forbidden`.
    func updateEntry(id: Int64, userID: Int64, title: String?, body: String?) throws(StoreError) -> Entry
    /// Throws `.notFound` or `.forbidden`.
    func deleteEntry(id: Int64, userID: Int64) throws(StoreError)
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
        }
    }
}
