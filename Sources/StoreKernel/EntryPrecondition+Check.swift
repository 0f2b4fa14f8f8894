import DiaryAPI
import DiaryStore

/// The `If-Match` rule, written once: a change goes ahead when there is no precondition, or
/// when it holds for the entry as stored, read in the change's transaction.
public enum EntryPreconditionCheck {
    /// Throws `.preconditionFailed` unless `precondition` (if any) holds for the entry as
    /// `stored` reads it (not read at all without a precondition).
    public static func verify(_ precondition: EntryPrecondition?, entryID: Int64, stored: () throws -> Entry?) throws {
        guard let precondition else { return }
        guard let entry = try stored(), precondition(entry) else {
            throw StoreError(.preconditionFailed, .entry(entryID))
        }
    }
}
