import DiaryAPI
import DiaryStore

/// A stored value the store cannot read back: the schema's CHECKs keep these out, so the
/// database was damaged or edited by hand. Both engines answer it the same way (see
/// `StoreError.init(_:subject:)` below): the call fails as `.unavailable`, about what the call
/// was about, as any other failure of the database to answer.
public struct CorruptValue: Error, CustomStringConvertible {
    public var column: String
    public var value: String

    public init(column: String, value: String) {
        self.column = column
        self.value = value
    }

    public var description: String { "\(column) holds \(value.prefix(40).debugDescription)" }
}

extension StoreError {
    /// The call failed on a value it read: `.unavailable` about the call's `subject`.
    public init(_ corrupt: CorruptValue, subject: Subject) {
        self.init(.unavailable, subject, detail: "the database is damaged: \(corrupt)")
    }
}

extension Visibility {
    /// A visibility column read back (`column` names it for the log).
    public init(stored text: String, column: String) throws(CorruptValue) {
        guard let visibility = Visibility(rawValue: text) else { throw CorruptValue(column: column, value: text) }
        self = visibility
    }
}
