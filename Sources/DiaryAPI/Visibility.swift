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
    public static let choices = allCases.map(\.rawValue).joined(separator: ", ").replacingLastComma(with: " or")
}

/// A visibility as a request body sends it: a known value, or the text of an unknown one, so
/// that an unknown value is a field the client got wrong (422 naming it), not malformed JSON.
public enum VisibilityField: Codable, Sendable, Equatable {
    case known(Visibility)
    case unknown(String)

    public init(_ visibility: Visibility) {
        self = .known(visibility)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = Visibility(rawValue: text).map(VisibilityField.known) ?? .unknown(text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .known(let visibility): try container.encode(visibility.rawValue)
        case .unknown(let text): try container.encode(text)
        }
    }

    /// The visibility, or nil for an unknown value (validation has refused those).
    public var value: Visibility? {
        if case .known(let visibility) = self { return visibility }
        return nil
    }

    /// The value, or why it is not one.
    public func validated(field: String) -> Result<Visibility, FieldError> {
        switch self {
        case .known(let visibility): .success(visibility)
        case .unknown(let text): .failure(FieldError(field: field, message: "must be \(Visibility.choices), not '\(text.prefix(40))'"))
        }
    }
}

extension String {
    fileprivate func replacingLastComma(with replacement: String) -> String {
        guard let comma = range(of: ",", options: .backwards) else { return self }
        return replacingCharacters(in: comma, with: replacement)
    }
}
