import Foundation
import DiaryAPI
import APITokens
import DiaryStore
import HTTPCore

/// Turns `Authorization: Bearer TOKEN` into a user. A missing token, a malformed header and
/// a token nobody holds all end in one 401, so an answer never says which users exist.
public struct Authenticator: Sendable {
    let store: any DiaryStore

    public init(store: any DiaryStore) {
        self.store = store
    }

    public func user(for request: Request) throws(Problem) -> User {
        guard let header = request.headers[.authorization] else {
            throw .unauthorized("This request needs a token: add -H 'Authorization: Bearer TOKEN'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized("The Authorization header must be 'Bearer TOKEN'.")
        }
        let hash = TokenHash(token: String(parts[1].trimmingCharacters(in: .whitespaces)))
        let user: User?
        do {
            user = try store.user(tokenHash: hash)
        } catch {
            throw Problem(error)
        }
        guard let user else {
            throw .unauthorized("The token is not valid; ask for a new one with 'diary-server user token NAME'.")
        }
        return user
    }
}
