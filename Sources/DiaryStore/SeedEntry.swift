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
    /// Normalised tags (lowercase, distinct), as the API would keep them.
    public var tags: [String]

    public init(diaryID: Int64, title: String, body: String, created: Date, tags: [String] = []) {
        self.diaryID = diaryID
        self.title = title
        self.body = body
        self.created = created
        self.tags = tags
    }
}

extension Sequence<SeedEntry> {
    /// Hands the entries to `write` in consecutive batches of at most `size` (a transaction
    /// each, in a store's `insertEntries`), and returns the sum of what it returned: the
    /// number written. The batching both stores' `insertEntries` share.
    public func writeInBatches(of size: Int, _ write: ([SeedEntry]) throws(StoreError) -> Int) throws(StoreError) -> Int {
        var written = 0
        var batch: [SeedEntry] = []
        batch.reserveCapacity(Swift.max(size, 1))
        for entry in self {
            batch.append(entry)
            if batch.count >= size {
                written += try write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty {
            written += try write(batch)
        }
        return written
    }
}
