import Foundation

/// The body of `POST /api/tokens`: what the token is for (its name, shown in the list) and
/// what it may do.
public struct NewToken: Codable, Sendable, Equatable {
    public var name: String
    public var scope: TokenScopeField

    public init(name: String, scope: TokenScope) {
        self.name = name
        self.scope = .known(scope)
    }
}

/// A named token as its owner lists it: never the token itself, which only its creation shows.
public struct NamedToken: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var scope: TokenScope
    public var created: Date
    /// When the token was last used, to the minute (seconds are zero); nil: never.
    public var lastUsed: Date?

    public init(id: Int64, name: String, scope: TokenScope, created: Date, lastUsed: Date? = nil) {
        self.id = id
        self.name = name
        self.scope = scope
        self.created = created
        self.lastUsed = lastUsed
    }

    enum CodingKeys: String, CodingKey {
        case id = "token_id", name, scope, created, lastUsed = "last_used"
    }

    /// `last_used` is written as null rather than left out: the key is always there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(scope, forKey: .scope)
        try container.encode(created, forKey: .created)
        try container.encode(lastUsed, forKey: .lastUsed)
    }
}

/// The answer to `POST /api/tokens`: the token's description and, this once, the token.
public struct CreatedToken: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var scope: TokenScope
    public var created: Date
    public var token: String

    public init(_ named: NamedToken, token: String) {
        id = named.id
        name = named.name
        scope = named.scope
        created = named.created
        self.token = token
    }

    enum CodingKeys: String, CodingKey {
        case id = "token_id", name, scope, created, token
    }
}

/// The answer to `GET /api/tokens`: the caller's named tokens, oldest first.
public struct TokenList: Codable, Sendable, Equatable {
    public var tokens: [NamedToken]

    public init(tokens: [NamedToken]) {
        self.tokens = tokens
    }
}

/// A token's name: what the owner will recognise in the list ("iA Writer").
public enum TokenRules {
    /// Names follow the rule of titles (1 to 100 characters, trimmed, one line).
    public static let nameLength = 1...100

    public static func name(_ raw: String) -> Result<String, FieldError> {
        switch EntryRules.title(raw, field: "name") {
        case .success(let name) where name.unicodeScalars.count > nameLength.upperBound:
            .failure(FieldError(field: "name", message: "must be at most \(nameLength.upperBound) characters (it has \(name.unicodeScalars.count))"))
        case let other: other
        }
    }
}

extension NewToken: ValidatableBody {
    public func validated() -> Result<NewToken, ValidationFailure> {
        var errors: [FieldError] = []
        var valid = self
        switch TokenRules.name(name) {
        case .success(let name): valid.name = name
        case .failure(let error): errors.append(error)
        }
        if case .failure(let error) = scope.validated(field: "scope") { errors.append(error) }
        return errors.isEmpty ? .success(valid) : .failure(ValidationFailure(errors))
    }
}
