import Foundation
import DiaryAPI
import APITokens
import DiaryStore
import HTTPCore

/// Turns `Authorization: Bearer TOKEN` into a user and the token's scope. A missing token, a
/// malformed header and a token nobody holds all end in one 401, so an answer never says which
/// users exist.
///
/// Nothing is kept between requests: every request asks the store who holds its token, so a
/// token revoked (or a main token rotated) on one server fails at once on every server. The
/// lookup is by the token's SHA-256, through a UNIQUE index: the attacker chooses the token,
/// not its hash, so how far the index walk gets says nothing about any stored hash, and equal
/// hashes are the only match, which is what a constant-time comparison of the stored hash
/// would decide.
public struct Authenticator: Sendable {
    let store: any DiaryStore
    /// When a named token's use is recorded (to the minute).
    let clock: @Sendable () -> Date

    public init(store: any DiaryStore, clock: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.clock = clock
    }

    public func holder(for request: Request) throws(Problem) -> TokenHolder {
        guard let header = request.headers[.authorization] else {
            throw .unauthorized("This request needs a token: add -H 'Authorization: Bearer TOKEN'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized("The Authorization header must be 'Bearer TOKEN'.")
        }
        return try holder(token: String(parts[1].trimmingCharacters(in: .whitespaces)))
    }

    /// Who holds `token`, however it came: the `Authorization` header, or Micropub's
    /// `access_token` form field.
    public func holder(token: String) throws(Problem) -> TokenHolder {
        guard let holder = try lookUp(token: token) else {
            throw .unauthorized("The token is not valid; ask for a new one with 'diary-server user token NAME'.")
        }
        return holder
    }

    /// Who holds `token` now, or nil: the store keeps only its hash, and notes its use.
    func lookUp(token: String) throws(Problem) -> TokenHolder? {
        do {
            return try store.tokenHolder(tokenHash: TokenHash(token: token), at: clock())
        } catch {
            throw Problem(error)
        }
    }
}
