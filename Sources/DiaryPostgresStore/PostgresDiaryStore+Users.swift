import DiaryAPI
import DiaryStore
import Foundation
import StoreKernel

extension PostgresDiaryStore {
    public func createUser(name: String, tokenHash: TokenHash) throws(StoreError) -> User {
        try write(.userName(name)) { session in
            if try Self.userID(session, name: name) != nil {
                throw StoreError(.conflict, .userName(name))
            }
            try Self.checkTokenIsFree(session, tokenHash)
            let now = now()
            // Two servers creating the same name at once: the UNIQUE index refuses the second
            // (`.conflict`, see StoreError(_:subject:)).
            guard let id = try session.one(
                (Int64).self, "INSERT INTO users (name, token_hash, created) VALUES ($1, $2, $3) RETURNING user_id",
                [name, tokenHash.hex, now]
            ) else { throw StoreError(.unavailable, .userName(name), detail: "INSERT returned no id") }
            _ = try Self.insertDiary(session, ownerID: id, title: Diary.firstTitle(of: name), defaultVisibility: .public, now: now)
            return User(id: id, name: name)
        }
    }

    public func replaceToken(userName: String, tokenHash: TokenHash) throws(StoreError) -> User {
        try write(.userName(userName)) { session in
            guard let id = try Self.userID(session, name: userName) else {
                throw StoreError(.notFound, .userName(userName))
            }
            try Self.checkTokenIsFree(session, tokenHash)
            try session.execute("UPDATE users SET token_hash = $1 WHERE user_id = $2", [tokenHash.hex, id])
            return User(id: id, name: userName)
        }
    }

    public func user(tokenHash: TokenHash) throws(StoreError) -> User? {
        try statement(.operation("user with a token")) { session in
            try session.one((Int64, String).self, Self.userByTokenSQL, [tokenHash.hex]).map { User(id: $0.0, name: $0.1) }
        }
    }

    /// Every authenticated request asks it: prepared.
    static let userByTokenSQL = PreparedSQL("SELECT user_id, name FROM users WHERE token_hash = $1::text")
}

// MARK: - Helpers

extension PostgresDiaryStore {
    static func userID(_ session: SQLSession, name: String) throws -> Int64? {
        try session.one((Int64).self, "SELECT user_id FROM users WHERE name = $1", [name])
    }

    static func userName(_ session: SQLSession, id: Int64) throws -> String? {
        try session.one((String).self, "SELECT name FROM users WHERE user_id = $1", [id])
    }

    /// Two users, or two tokens, cannot share a token (main or named). The error says "token",
    /// never the token or its hash.
    static func checkTokenIsFree(_ session: SQLSession, _ tokenHash: TokenHash) throws {
        let sql = "SELECT 1 FROM users WHERE token_hash = $1 UNION ALL SELECT 1 FROM api_tokens WHERE token_hash = $1"
        if try session.one((Int32).self, sql, [tokenHash.hex]) != nil {
            throw StoreError(.conflict, .token)
        }
    }
}
