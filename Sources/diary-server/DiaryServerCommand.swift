import ArgumentParser
import DiaryPostgresStore
import DiarySQLiteStore
import DiaryStore

@main
struct DiaryServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary-server",
        abstract: "The diary JSON API server, on an embedded SQLite database or on PostgreSQL.",
        subcommands: [Serve.self, UserCommand.self, Backup.self, Restore.self, Check.self, Seed.self],
        defaultSubcommand: Serve.self
    )
}

/// The database option every subcommand shares.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            The SQLite database file (created with its folder when missing), or a PostgreSQL \
            database, postgres://USER@HOST:PORT/NAME, its password in the URL, PGPASSWORD or ~/.pgpass.
            """
    )
    var database = "db/diary.sqlite3"

    /// True when `database` is a PostgreSQL URL rather than a file.
    var isPostgres: Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// What messages call the database: the file's path, or the URL without its password.
    var displayName: String {
        guard isPostgres else { return database }
        return (try? PostgresURL(database).description) ?? "the PostgreSQL database"
    }

    /// Opens the store `database` names, bringing its schema up to date.
    ///
    /// - parameter connections: for PostgreSQL, the most connections the store opens: as many
    ///   as threads call it at once (the server's workers and write threads: `DatabaseSizing`).
    /// - parameter timeout: for PostgreSQL, the longest a call waits for the server at each step.
    /// - parameter queryTimeout: how long one read may run before it is stopped (`.timedOut`); nil: no limit.
    func openStore(
        connections: Int = 2, timeout: Double = PostgresDiaryStore.defaultTimeout, queryTimeout: Duration? = nil
    ) throws(StoreError) -> any DiaryStore {
        if isPostgres {
            return try PostgresDiaryStore(url: database, poolSize: connections, timeout: timeout, queryTimeout: queryTimeout)
        }
        return try SQLiteDiaryStore(path: database, queryTimeout: queryTimeout)
    }
}
