/// What a named token may do. Scopes are ordered: `write` includes `read`. The main token of a
/// user (the one `diary-server user token` rotates) has `write`.
///
/// Every endpoint says the scope it needs (`APIEndpoint.requiredScope`): reads need `read`,
/// anything that changes something needs `write`, and so does managing tokens, so that a
/// token given to a reading app cannot mint itself a writing one. AtomPub and Micropub take
/// the same two scopes.
public enum TokenScope: String, Codable, Sendable, CaseIterable, Comparable {
    /// Reads everything its owner may read, private entries and drafts included; writes nothing.
    case read
    /// Reads and writes as its owner.
    case write

    /// Whether a token of this scope may call an endpoint that needs `needed`.
    public func allows(_ needed: TokenScope) -> Bool {
        needed <= self
    }

    public static func < (lhs: TokenScope, rhs: TokenScope) -> Bool {
        lhs == .read && rhs == .write
    }
}

/// A scope as a request body sends it: an unknown value is a 422 naming the field (`ChoiceField`).
public typealias TokenScopeField = ChoiceField<TokenScope>
