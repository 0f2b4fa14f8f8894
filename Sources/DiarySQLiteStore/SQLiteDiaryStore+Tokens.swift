import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

extension SQLiteDiaryStore {
    public func tokenHolder(tokenHash: TokenHash, at time: Date) throws(StoreError) -> TokenHolder? {
        // One statement finds either kind of token, through the UNIQUE index of each table.
        let found = try read(.operation("user with a token")) { db -> (TokenHolder, lastUsed: Date?)? in
            let statement = try db.cachedStatement(sql: """
                SELECT user_id, name, NULL, 'write', NULL FROM users WHERE token_hash = ?1
                UNION ALL
                SELECT t.user_id, u.name, t.token_id, t.scope, t.last_used
                FROM api_tokens t JOIN users u ON u.user_id = t.user_id WHERE t.token_hash = ?1
                """)
            return try Row.fetchOne(statement, arguments: [tokenHash.hex]).map(Self.holder(from:))
        }
        guard let (holder, lastUsed) = found else { return nil }
        if let tokenID = holder.tokenID, TokenUse.needsRecording(stored: lastUsed, at: time) {
            try recordUse(tokenID: tokenID, at: time)
        }
        return holder
    }

    /// Writes the token's minute of use. The file changes, so `PRAGMA data_version` moves (as
    /// for any commit): at most once a minute per token in use, each costing the response
    /// cache one rebuild of the answers asked for again. The condition makes a second server
    /// that saw the same old minute change nothing (SQLite leaves the file and its data version
    /// alone then).
    private func recordUse(tokenID: Int64, at time: Date) throws(StoreError) {
        let minute = RFC3339.string(from: TokenUse.minute(of: time))
        try write(.namedToken(tokenID)) { db in
            try db.cachedStatement(sql: "UPDATE api_tokens SET last_used = ?1 WHERE token_id = ?2 AND (last_used IS NULL OR last_used < ?1)")
                .execute(arguments: [minute, tokenID])
        }
    }

    public func createToken(userID: Int64, name: String, scope: TokenScope, tokenHash: TokenHash) throws(StoreError) -> NamedToken {
        try write(.user(userID)) { db in
            guard try Self.userName(db, id: userID) != nil else { throw StoreError(.notFound, .user(userID)) }
            try Self.checkTokenIsFree(db, tokenHash)
            let now = now()
            try db.cachedStatement(sql: "INSERT INTO api_tokens (user_id, name, scope, token_hash, created) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [userID, name, scope.rawValue, tokenHash.hex, now.text])
            return NamedToken(id: db.lastInsertedRowID, name: name, scope: scope, created: now.date)
        }
    }

    public func tokens(userID: Int64) throws(StoreError) -> [NamedToken] {
        try read(.user(userID)) { db in
            let statement = try db.cachedStatement(sql: """
                SELECT token_id, name, scope, created, last_used FROM api_tokens WHERE user_id = ? ORDER BY token_id
                """)
            return try Row.fetchAll(statement, arguments: [userID]).map { row in
                NamedToken(
                    id: row[0], name: row[1], scope: try TokenScope(stored: row[2], column: "api_tokens.scope"), created: try Self.date(row[3], column: "api_tokens.created"),
                    lastUsed: try (row[4] as String?).map { text in try Self.date(text, column: "api_tokens.last_used") }
                )
            }
        }
    }

    public func revokeToken(id: Int64, userID: Int64) throws(StoreError) {
        try write(.namedToken(id)) { db in
            try db.cachedStatement(sql: "DELETE FROM api_tokens WHERE token_id = ? AND user_id = ?").execute(arguments: [id, userID])
            guard db.changesCount == 1 else { throw StoreError(.notFound, .namedToken(id)) }
        }
    }
}

// MARK: - Helpers

extension SQLiteDiaryStore {
    static func holder(from row: Row) throws -> (TokenHolder, lastUsed: Date?) {
        let user = User(id: row[0], name: row[1])
        let lastUsed = try (row[4] as String?).map { text in try date(text, column: "api_tokens.last_used") }
        return (TokenHolder(user: user, scope: try TokenScope(stored: row[3], column: "api_tokens.scope"), tokenID: row[2]), lastUsed)
    }
}
