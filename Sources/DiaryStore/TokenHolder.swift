import DiaryAPI
import Foundation

/// Who a token belongs to and what it may do: the user's main token (`tokenID` nil, scope
/// `write`) or one of their named tokens.
public struct TokenHolder: Sendable, Equatable {
    public var user: User
    public var scope: TokenScope
    /// The named token's id; nil for the main token.
    public var tokenID: Int64?

    public init(user: User, scope: TokenScope, tokenID: Int64? = nil) {
        self.user = user
        self.scope = scope
        self.tokenID = tokenID
    }
}
