import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel

extension PostgresDiaryStore {
    public func tokenHolder(tokenHash: TokenHash, at time: Date) throws(StoreError) -> TokenHolder? {
        let found = try statement(.operation("user with a token")) { session in
            try session.one((Int64, String, Int64?, String, Date?).self, Self.tokenHolderSQL, [tokenHash.hex])
        }
        guard let (userID, name, tokenID, scopeText, lastUsed) = found else { return nil }
        let scope: TokenScope
        do {
            scope = try TokenScope(stored: scopeText, column: "api_tokens.scope")
        } catch {
            throw StoreError(error, subject: .operation("user with a token"))
        }
        if let tokenID, TokenUse.needsRecording(stored: lastUsed, at: time) {
            // One statement, its own transaction, outside `write`: it does not move
            // data_version, since no kept answer shows when a token was used, so a token in use
            // never empties the servers' response caches. The condition lets one server of
            // several write the minute; the others change nothing.
            try statement(.namedToken(tokenID)) { session in
                _ = try session.query(Self.recordTokenUseSQL, [TokenUse.minute(of: time), tokenID])
            }
        }
        return TokenHolder(user: User(id: userID, name: name), scope: scope, tokenID: tokenID)
    }

    /// Every authenticated request asks it: prepared. Either kind of token, through the UNIQUE
    /// index of each table.
    static let tokenHolderSQL = PreparedSQL("""
        SELECT user_id, name, NULL::bigint, 'write', NULL::timestamptz FROM users WHERE token_hash = $1::text
        UNION ALL
        SELECT t.user_id, u.name, t.token_id, t.scope, t.last_used
        FROM api_tokens t JOIN users u ON u.user_id = t.user_id WHERE t.token_hash = $1::text
        """)

    static let recordTokenUseSQL = PreparedSQL("""
        UPDATE api_tokens SET last_used = $1::timestamptz WHERE token_id = $2::bigint AND (last_used IS NULL OR last_used < $1::timestamptz)
        """)

    public func createToken(userID: Int64, name: String, scope: TokenScope, tokenHash: TokenHash) throws(StoreError) -> NamedToken {
        try write(.user(userID)) { session in
            guard try Self.userName(session, id: userID) != nil else { throw StoreError(.notFound, .user(userID)) }
            try Self.checkTokenIsFree(session, tokenHash)
            let now = now()
            guard let id = try session.one(
                (Int64).self, "INSERT INTO api_tokens (user_id, name, scope, token_hash, created) VALUES ($1, $2, $3, $4, $5) RETURNING token_id",
                [userID, name, scope.rawValue, tokenHash.hex, now]
            ) else { throw StoreError(.unavailable, .user(userID), detail: "INSERT returned no id") }
            return NamedToken(id: id, name: name, scope: scope, created: now)
        }
    }

    public func tokens(userID: Int64) throws(StoreError) -> [NamedToken] {
        try statement(.user(userID)) { session in
            let rows = try session.query(
                "SELECT token_id, name, scope, created, last_used FROM api_tokens WHERE user_id = $1 ORDER BY token_id", [userID]
            )
            return try rows.map { row in
                let (id, name, scope, created, lastUsed) = try row.decode((Int64, String, String, Date, Date?).self)
                return NamedToken(id: id, name: name, scope: try TokenScope(stored: scope, column: "api_tokens.scope"), created: created, lastUsed: lastUsed)
            }
        }
    }

    public func revokeToken(id: Int64, userID: Int64) throws(StoreError) {
        try write(.namedToken(id)) { session in
            guard try session.execute("DELETE FROM api_tokens WHERE token_id = $1 AND user_id = $2", [id, userID]) == 1 else {
                throw StoreError(.notFound, .namedToken(id))
            }
        }
    }
}
