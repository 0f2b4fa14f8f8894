import DiaryStore
import Foundation
import PostgresNIO

/// One step of the schema's history: applied once, in order, in the transaction that records it.
struct Migration: Sendable {
    var version: Int
    var name: String
    /// The SQL file, statement by statement.
    var sql: String
    /// What the step does besides its SQL, in the same transaction.
    var after: @Sendable (SQLSession) throws -> Void = { _ in }
}

extension PostgresDiaryStore {
    /// How long one statement of a migration or of `seed` may run, and a second server wait
    /// for the first's migration: far above the statements of requests, since a migration may
    /// build an index over every entry (schema v4 took 21 minutes at 1,000,000 entries on a
    /// busy 2-core machine), and a seeded batch of 2,000 entries fills the bigram index.
    public static let maintenanceTimeout: TimeInterval = 30 * 60

    /// The schema's history: version N is `db/postgres/postgres-vN.sql`, embedded in the binary
    /// at build time. A later change is a new file and a new entry here; a shipped one is never edited.
    static let migrations: [Migration] = [
        Migration(version: 1, name: "users, diaries, entries, tags, keys, settings, data version",
                  sql: String(decoding: PackageResources.postgres_v1_sql, as: UTF8.self)) { session in
            // The secret that signs paging cursors: 32 bytes of the system's CSPRNG (getrandom).
            var generator = SystemRandomNumberGenerator()
            let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            try session.execute(
                "INSERT INTO settings (name, value) VALUES ('cursor_secret', $1)", [ByteBuffer(bytes: secret)]
            )
        },
        Migration(version: 2, name: "entry counts kept by the store's one UPDATE of the diary, not by triggers",
                  sql: String(decoding: PackageResources.postgres_v2_sql, as: UTF8.self)),
        Migration(version: 3, name: "what writes of entries do to their diary kept in 16 rows of diary_activity",
                  sql: String(decoding: PackageResources.postgres_v3_sql, as: UTF8.self)),
        Migration(version: 4, name: "a GIN index of every entry's bigrams, for search terms of fewer than three characters",
                  sql: String(decoding: PackageResources.postgres_v4_sql, as: UTF8.self)),
        Migration(version: 5, name: "uploaded images, the entries linking to them, and idempotency keys that made one",
                  sql: String(decoding: PackageResources.postgres_v5_sql, as: UTF8.self)),
        Migration(version: 6, name: "the change feed: a sequence per audience, numbered by triggers in the writing transaction",
                  sql: String(decoding: PackageResources.postgres_v6_sql, as: UTF8.self)),
        Migration(version: 7, name: "named tokens with scopes, and drafts",
                  sql: String(decoding: PackageResources.postgres_v7_sql, as: UTF8.self)),
        Migration(version: 8, name: "scheduled posts",
                  sql: String(decoding: PackageResources.postgres_v8_sql, as: UTF8.self)),
        Migration(version: 9, name: "an index of every entry's words and neighbouring pairs of them, in front of the trigram indexes",
                  sql: String(decoding: PackageResources.postgres_v9_sql, as: UTF8.self)),
        Migration(version: 10, name: "the chunk index keyed by ranges of entry ids, and the vocabulary's index without a pending list",
                  sql: String(decoding: PackageResources.postgres_v10_sql, as: UTF8.self)),
        Migration(version: 11, name: "a GIN index of every entry's characters, for search terms of one character",
                  sql: String(decoding: PackageResources.postgres_v11_sql, as: UTF8.self)),
        Migration(version: 12, name: "each tag's row carries its entry's date, visibility and diary, indexed newest first",
                  sql: String(decoding: PackageResources.postgres_v12_sql, as: UTF8.self)),
        Migration(version: 13, name: "each tag's count of entries kept, public ones per tag and the others per diary",
                  sql: String(decoding: PackageResources.postgres_v13_sql, as: UTF8.self)),
        Migration(version: 14, name: "each tag's row carries all of its entry's tags, in the index newest first",
                  sql: String(decoding: PackageResources.postgres_v14_sql, as: UTF8.self)),
    ]

    /// Applies every migration the database lacks, in one transaction under an advisory lock:
    /// a second server starting at the same time waits for the first, then finds the schema
    /// up to date. A database with a migration this build does not know (a newer server's) is
    /// left alone and opened as it is.
    ///
    /// - parameter version: the last migration to apply (tests stop at an older schema).
    static func migrate(_ session: SQLSession, through version: Int = .max) throws {
        try inTransaction(session, begin: "BEGIN") {
            // Another server's migration may take longer than the lock timeout of ordinary writes.
            try session.execute("SET LOCAL lock_timeout = '10min'")
            // Nor may a time limit of requests' statements, if one is set, stop an index's build.
            try session.execute("SET LOCAL statement_timeout = 0")
            try session.execute("SELECT pg_advisory_xact_lock($1)", [migrationLock])
            // Quiet: "relation already exists, skipping" is a notice, not news.
            try session.execute("SET LOCAL client_min_messages = warning")
            try session.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    name    text NOT NULL,
                    applied timestamptz NOT NULL DEFAULT now()
                )
                """)
            let applied = Set(try session.query("SELECT version FROM schema_migrations").map { row in
                try row.decode(Int.self) as Int
            })
            for migration in migrations where !applied.contains(migration.version) && migration.version <= version {
                for statement in SQLScript.statements(migration.sql) {
                    try session.execute(statement)
                }
                try migration.after(session)
                try session.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]
                )
            }
        }
    }

    /// Every migration's version, in order: what `appliedMigrations()` answers once a store opened.
    public static var schemaVersions: [Int] { migrations.map(\.version) }

    /// The versions recorded in `schema_migrations`, in order: for tests.
    public func appliedMigrations() throws(StoreError) -> [Int] {
        try statement(.operation("schema migrations")) { session in
            try session.query("SELECT version FROM schema_migrations ORDER BY version").map { row in
                try row.decode(Int.self) as Int
            }
        }
    }
}
