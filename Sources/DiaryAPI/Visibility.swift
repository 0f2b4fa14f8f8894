import Foundation

/// Who may read an entry. Everything others see (lists, search, tags, counts, a diary's
/// `updated`, feeds) is made of public entries only, so that nobody can tell whether an owner
/// has unlisted or private ones.
public enum Visibility: String, Codable, Sendable, CaseIterable {
    /// Anyone, everywhere.
    case `public`
    /// Anyone who has its id or URL; in no list, search result, tag count or feed.
    case unlisted
    /// Its owner only; to anyone else it does not exist (404, as for an id never used).
    case `private`

    /// "public, unlisted or private", for messages.
    public static let choices = VisibilityField.choices
}

/// A visibility as a request body sends it (see `ChoiceField`).
public typealias VisibilityField = ChoiceField<Visibility>

/// One of a fixed set of words (`Visibility`, `TokenScope`) as a request body sends it: a known
/// value, or the text of an unknown one, so that an unknown value is a field the client got
/// wrong (422 naming it), not malformed JSON.
public enum ChoiceField<Value>: Codable, Sendable, Equatable
where Value: RawRepresentable & CaseIterable & Sendable & Equatable, Value.RawValue == String {
    case known(Value)
    case unknown(String)

    public init(_ value: Value) {
        self = .known(value)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = Value(rawValue: text).map(ChoiceField.known) ?? .unknown(text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .known(let value): try container.encode(value.rawValue)
        case .unknown(let text): try container.encode(text)
        }
    }

    /// The value, or nil for an unknown one (validation has refused those).
    public var value: Value? {
        if case .known(let value) = self { return value }
        return nil
    }

    /// "public, unlisted or private": the words it takes, for messages.
    public static var choices: String {
        Value.allCases.map(\.rawValue).joined(separator: ", ").replacingLastComma(with: " or")
    }

    /// The value, or why it is not one.
    public func validated(field: String) -> Result<Value, FieldError> {
        switch self {
        case .known(let value): .success(value)
        case .unknown(let text): .failure(FieldError(field: field, message: "must be \(Self.choices), not '\(text.prefix(40))'"))
        }
    }
}

extension String {
    fileprivate func replacingLastComma(with replacement: String) -> String {
        guard let comma = range(of: ",", options: .backwards) else { return self }
        return replacingCharacters(in: comma, with: replacement)
    }
}
