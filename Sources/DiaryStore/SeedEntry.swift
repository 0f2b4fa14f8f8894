import Foundation

/// An entry written as it is, with its own time: what a store's `insertEntries` takes to fill
/// a database for a benchmark or a demo. Here rather than in one store so that `diary-server
/// seed` makes the same entries for SQLite and PostgreSQL.
public struct SeedEntry: Sendable, Equatable {
    public var diaryID: Int64
    public var title: String
    public var body: String
    /// Both `created` and `updated`; fractions of a second are dropped, as the stores keep them.
    public var created: Date

    public init(diaryID: Int64, title: String, body: String, created: Date) {
        self.diaryID = diaryID
        self.title = title
        self.body = body
        self.created = created
    }
}
