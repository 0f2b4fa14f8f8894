import DiaryAPI
import DiaryStore
import GRDB
import StoreKernel

extension SQLiteDiaryStore {
    public func createUser(name: String, tokenHash: TokenHash) throws(StoreError) -> User {
        try write(.userName(name)) { db in
            if try Self.userID(db, name: name) != nil {
                throw StoreError(.conflict, .userName(name))
            }
            try Self.checkTokenIsFree(db, tokenHash)
            let now = now()
            try db.cachedStatement(sql: "INSERT INTO users (name, token_hash, created) VALUES (?, ?, ?)")
                .execute(arguments: [name, tokenHash.hex, now.text])
            let user = User(id: db.lastInsertedRowID, name: name)
            _ = try Self.insertDiary(db, ownerID: user.id, title: Diary.firstTitle(of: name), defaultVisibility: .public, now: now.text)
            return user
        }
    }

    public func replaceToken(userName: String, tokenHash: TokenHash) throws(StoreError) -> User {
        try write(.userName(userName)) { db in
            guard let id = try Self.userID(db, name: userName) else {
                throw StoreError(.notFound, .userName(userName))
            }
            try Self.checkTokenIsFree(db, tokenHash)
            try db.cachedStatement(sql: "UPDATE users SET token_hash = ? WHERE user_id = ?")
                .execute(arguments: [tokenHash.hex, id])
            return User(id: id, name: userName)
        }
    }

    public func user(tokenHash: TokenHash) throws(StoreError) -> User? {
        // The lookup goes through the UNIQUE index on token_hash. What an attacker controls is
        // the token; its SHA-256 prefix is not something they can steer, so the index walk's
        // timing tells them nothing useful.
        try read(.operation("user with a token")) { db in
            let statement = try db.cachedStatement(sql: "SELECT user_id, name FROM users WHERE token_hash = ?")
            return try Row.fetchOne(statement, arguments: [tokenHash.hex]).map { row in
                try User(id: row.decode(atIndex: 0), name: row.decode(atIndex: 1))
            }
        }
    }
}

// MARK: - Helpers

extension SQLiteDiaryStore {
    static func userID(_ db: Database, name: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT user_id FROM users WHERE name = ?"), arguments: [name])
    }

    static func userName(_ db: Database, id: Int64) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT name FROM users WHERE user_id = ?"), arguments: [id])
    }

    /// Two users, or two tokens, cannot share a token (main or named). With 256 random bits this
    /// means a token was reused; the error says "token", never the token or its hash.
    static func checkTokenIsFree(_ db: Database, _ tokenHash: TokenHash) throws {
        let statement = try db.cachedStatement(
            sql: "SELECT 1 FROM users WHERE token_hash = ?1 UNION ALL SELECT 1 FROM api_tokens WHERE token_hash = ?1"
        )
        if try Bool.fetchOne(statement, arguments: [tokenHash.hex]) != nil {
            throw StoreError(.conflict, .token)
        }
    }
}
