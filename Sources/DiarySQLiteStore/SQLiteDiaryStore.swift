import CSQLiteConfig
import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import GRDBSQLite
import StoreKernel

/// `DiaryStore` on an SQLite file, through a GRDB `DatabasePool` (or one `DatabaseQueue`, `readingOnWriter`).
///
/// - WAL mode: readers run concurrently with each other and with the one writer; there is no
///   lock of the store's own.
/// - `synchronous = FULL` on the writer: a write that returned has been fsynced and survives a
///   crash or a power loss.
/// - A busy timeout, so that writers of other processes wait for each other instead of failing,
///   and IMMEDIATE write transactions (GRDB's default), so that the wait is always possible.
/// - Every protocol method is one transaction: a check ("does this diary exist, is it yours")
///   and the change it guards cannot be separated by another writer.
/// - A database file that cannot be written (read-only file or disk) still opens, read-only:
///   reads work and writes throw `.unavailable`.
public final class SQLiteDiaryStore: DiaryStore {
    /// How long a write waits for another process's write lock before it fails, unless the
    /// opener says otherwise (`lockWait`): the server's requests should not queue for longer.
    public static let busyTimeout: TimeInterval = 5

    /// The writer connection: a `DatabasePool`'s (whose own readers serve only `pragma(_:on:)`),
    /// or, for a store of one connection (`readingOnWriter`), a `DatabaseQueue`.
    let writer: any DatabaseWriter
    /// The connections reads run on, but in a store of one connection.
    let readers: ReaderConnections
    /// Tells when any connection, in this process or another, committed (see `dataVersion()`).
    let versionWatcher: DataVersionWatcher
    /// Concurrent writes share a transaction, and so an fsync (see `GroupCommit`).
    let groupCommit = GroupCommit()
    let clock: @Sendable () -> Date
    /// The path of the database file.
    public let path: String
    /// True when the file could not be opened for writing: every write throws `.unavailable`.
    public let isReadOnly: Bool
    /// How long one read may run before it is stopped (`.timedOut`); nil: as long as it takes.
    public let queryTimeout: Duration?
    /// Whether `close()` leaves the WAL in place (`keepingWAL`), while it stays under `keptWALLimit`.
    let keepsWAL: Bool
    /// Whether reads run on the writer's connection (`readingOnWriter`) instead of `readers`.
    let readsOnWriter: Bool

    /// Opens the database at `path`, creating the file and its directory when missing, and
    /// brings its schema up to date.
    ///
    /// - parameter queryTimeout: how long one read may run: a read still running then is stopped
    ///   and throws `.timedOut` (an integrity check is never stopped); nil: no limit.
    /// - parameter lockWait: how long opening, each write and each new read connection wait for
    ///   another process's lock. The server's default keeps a request from queueing long; the CLI's replica waits
    ///   longer, for a sync in another terminal to finish its page.
    /// - parameter clock: the time of new and changed rows (tests pass a fixed one).
    /// - parameter keepingWAL: leave the write-ahead log in place when the store closes, instead
    ///   of checkpointing it into the file (two fsyncs) and deleting it (see `configuration(readonly:lockWait:keepingWAL:)`).
    /// - parameter readingOnWriter: one connection (a GRDB `DatabaseQueue`) for every read and
    ///   write, no pool and no reader connections: for a process that runs one command and
    ///   exits (the CLI's replica). Each connection reads and parses the whole schema when it
    ///   opens (about 2.5 million instructions for this one, with its search indexes and
    ///   triggers, callgrind), and the writer is opened anyway, for the migrations: a second
    ///   connection was a tenth of a `diary list --offline`. Reads then wait for a write in
    ///   progress in this process, not for other processes' (WAL), and have no query budget.
    /// - throws: `.unavailable` when the file cannot be opened or migrated.
    public init(
        path: String, queryTimeout: Duration? = nil, lockWait: TimeInterval = SQLiteDiaryStore.busyTimeout,
        keepingWAL: Bool = false, readingOnWriter: Bool = false, clock: @escaping @Sendable () -> Date = Date.init
    ) throws(StoreError) {
        self.path = path
        self.clock = clock
        self.queryTimeout = queryTimeout
        keepsWAL = keepingWAL
        readsOnWriter = readingOnWriter
        readers = ReaderConnections(path: path, lockWait: lockWait)
        versionWatcher = DataVersionWatcher(readers: readers, path: path)
        let subject = "database \(path)"
        do {
            try Self.createParentDirectory(of: path)
            (writer, isReadOnly) = try Self.openWriter(path: path, lockWait: lockWait, keepingWAL: keepingWAL, alone: readingOnWriter)
        } catch {
            throw StoreError(error, subject: .operation(subject))
        }
        // A store that serves reads the fold of every code point now, not in its first search
        // with an accented letter; a run of the CLI does not, unless it searches for one.
        if !readingOnWriter { TrigramFold.warmUp() }
    }

    /// The largest WAL a store opened `keepingWAL` leaves at its close. The first connection to
    /// open the file reads the whole WAL back (it rebuilds the WAL's index, in the `-shm` file,
    /// from the log): after a first sync of 10,000 entries that was 11 MB, about 2,700 reads and
    /// 13 ms of every later `diary list --offline`, more than the run's own work. Past the
    /// limit, the close checkpoints the WAL into the file and truncates it, at the price of the
    /// fsyncs the kept WAL otherwise saves, once per big write instead of at every run.
    static let keptWALLimit = 1 << 20

    /// Closes every connection. Any later call throws `.unavailable`.
    public func close() throws(StoreError) {
        do {
            try versionWatcher.close()
            try readers.close()
            if keepsWAL { Self.truncateWALPastLimit(writer, path: path) }
            try writer.close()
        } catch {
            throw StoreError(error, subject: .operation("database \(path)"))
        }
    }

    public func dataVersion() throws(StoreError) -> Int64 {
        do {
            return try versionWatcher.version()
        } catch {
            throw StoreError(error, subject: .operation("database \(path)"))
        }
    }

    /// Checkpoints and truncates the WAL of `path` when it has grown past `keptWALLimit`, unless
    /// another connection is in the way: then the WAL stays as it is (nothing is lost either
    /// way), for a later close. Not waiting matters: a sync in another terminal holds the write
    /// lock for a page at a time, and a reader pins the log, for as long as they run.
    static func truncateWALPastLimit(_ writer: any DatabaseWriter, path: String) {
        // `stat` itself: FileManager's attributes cost a million instructions (their dynamic casts).
        var status = stat()
        guard stat(path + "-wal", &status) == 0, status.st_size > keptWALLimit else { return }
        try? writer.writeWithoutTransaction { db in
            sqlite3_busy_timeout(db.sqliteConnection, 0)
            try db.checkpoint(.truncate)
        }
    }

    /// The result of `PRAGMA integrity_check`: "ok", or one line per problem found.
    public func integrityCheck() throws(StoreError) -> String {
        try read(.operation("database \(path)"), bounded: false) { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }
}

// MARK: - Opening

extension SQLiteDiaryStore {
    static func createParentDirectory(of path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// - parameter keepingWAL: the writer leaves the WAL as it is when it closes last
    ///   (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`), for a file opened by one short process after
    ///   another (the CLI's replica). Each such run otherwise paid three fsyncs for nothing: two
    ///   for the checkpoint at its close, and one at the next open, where GRDB, finding no WAL,
    ///   writes one to have a non-empty WAL. The WAL still checkpoints itself past 1,000 pages
    ///   (SQLite's autocheckpoint), and a WAL left behind is part of the database: any
    ///   connection reads it, none loses it.
    static func configuration(readonly: Bool, lockWait: TimeInterval = busyTimeout, keepingWAL: Bool = false) -> Configuration {
        var configuration = Configuration()
        configuration.label = "Diary"
        configuration.readonly = readonly
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(lockWait)
        configuration.registerDiaryTokenizers()
        if readonly {
            // Up to `ReaderConnections.maximumCount` readers: at SQLite's default of 2 MiB of
            // page cache each, they held a fifth of the server's peak RSS. The file's pages stay
            // in the kernel's cache, and most answers come from the response cache anyway.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA cache_size = -512")
            }
        } else if keepingWAL {
            configuration.prepareDatabase { db in
                let code = diary_sqlite_keep_wal_on_close(db.sqliteConnection.map { UnsafeMutableRawPointer($0) })
                guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
            }
        }
        return configuration
    }

    /// The writer, or a read-only connection when SQLite cannot write the file: a pool's, or
    /// `alone`, a `DatabaseQueue`, one connection for every read and write. (GRDB's pool also
    /// turns WAL on at every open and looks at the WAL's size through Foundation: 2.5 million
    /// instructions of a 47-million `diary list --offline`, callgrind.)
    static func openWriter(path: String, lockWait: TimeInterval, keepingWAL: Bool, alone: Bool) throws -> (any DatabaseWriter, readOnly: Bool) {
        func open(_ configuration: Configuration) throws -> any DatabaseWriter {
            alone ? try DatabaseQueue(path: path, configuration: configuration) : try DatabasePool(path: path, configuration: configuration)
        }
        do {
            let writer = try open(configuration(readonly: false, lockWait: lockWait, keepingWAL: keepingWAL))
            // GRDB's pool sets `synchronous = NORMAL` when it turns WAL on, after any
            // `prepareDatabase` hook, so FULL is set here, on the writer connection, which stays
            // open for the life of the store. (Readers never write: their setting does not
            // matter.) A queue leaves the journal as the file has it: WAL, which other
            // processes' reads need while this one writes, is asked for here, which changes a
            // new file and is a no-op on one that has it.
            try writer.writeWithoutTransaction { db in
                if alone { try db.execute(sql: "PRAGMA journal_mode = WAL") }
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            try migrator.migrate(writer)
            // SQLite opens a file it cannot write read-only without a word, and the steps above
            // may have had nothing to write. An empty IMMEDIATE transaction needs the write
            // lock and fails with SQLITE_READONLY on such a file.
            try writer.write { _ in }
            return (writer, false)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
            // The file (or its disk) cannot be written: SQLite opened it read-only, and GRDB's
            // WAL setup or the migration tried to write. Serve reads from a read-only
            // connection, if the schema is already there.
            let reader = try open(configuration(readonly: true))
            guard try reader.read({ db in try migrator.hasCompletedMigrations(db) }) else {
                throw error
            }
            return (reader, true)
        }
    }

    /// The schema's history: "v1" is `db/schema.sql`, "v2" (visibility) `db/schema-v2.sql`, "v3"
    /// (the index of one- and two-character terms) `db/schema-v3.sql`, "v4" (uploaded images and
    /// the entries linking to them) `db/schema-v4.sql`, and so on to "v11" (tags' rows carrying all their entry's tags),
    /// each `db/schema-vN.sql`, all embedded in the binary at build time.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_sql, as: UTF8.self))
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v2_sql, as: UTF8.self))
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v3_sql, as: UTF8.self))
        }
        migrator.registerMigration("v4") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v4_sql, as: UTF8.self))
        }
        // The change feed (issue 22): `db/schema-v5.sql`.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v5_sql, as: UTF8.self))
        }
        // Named tokens with scopes (issue 23): `db/schema-v6.sql`.
        migrator.registerMigration("v6") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v6_sql, as: UTF8.self))
        }
        // Scheduled posts (issue 23): `db/schema-v7.sql`.
        migrator.registerMigration("v7") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v7_sql, as: UTF8.self))
        }
        // The index of words in front of the trigram indexes (issue 25): `db/schema-v8.sql`.
        migrator.registerMigration("v8") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v8_sql, as: UTF8.self))
        }
        // Each tag's row carries its entry's date, visibility and diary (issue 25): `db/schema-v9.sql`.
        migrator.registerMigration("v9") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v9_sql, as: UTF8.self))
        }
        // Each tag's count of entries, kept (issue 25): `db/schema-v10.sql`.
        migrator.registerMigration("v10") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v10_sql, as: UTF8.self))
        }
        // Each tag's row carries all of its entry's tags (issue 25): `db/schema-v11.sql`.
        migrator.registerMigration("v11") { db in
            try db.execute(sql: String(decoding: PackageResources.schema_v11_sql, as: UTF8.self))
        }
        return migrator
    }
}

// MARK: - Transactions

extension SQLiteDiaryStore {
    /// Runs `updates` in an IMMEDIATE transaction on the writer connection, in a savepoint of its
    /// own when concurrent writes share the transaction (`GroupCommit`); it returns once that
    /// transaction is committed. Any error rolls `updates` back and is thrown as a `StoreError`
    /// about `subject`.
    func write<T>(_ subject: @autoclosure () -> StoreError.Subject, _ updates: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try groupCommit.write(writer, updates)
        } catch {
            throw StoreError(error, subject: subject())
        }
    }

    /// `write` for what can be fetched again (a replica's page of the server's changes): one
    /// IMMEDIATE transaction committed with `synchronous = NORMAL`, so without an fsync. In WAL
    /// mode a power loss may then lose the latest such transactions, never half of one, and never
    /// an earlier FULL commit (whose fsync covers the whole log before it). Not grouped with other
    /// writes: a replica has one writer.
    func writeWithoutSync<T>(_ subject: @autoclosure () -> StoreError.Subject, _ updates: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                let result = Result { () throws -> T in
                    var result: T?
                    try db.inTransaction(.immediate) {
                        result = try updates(db)
                        return .commit
                    }
                    return result!
                }
                // Thrown, not ignored: a writer left at NORMAL would commit the outbox (what the
                // user wrote offline) without its fsync, silently.
                try db.execute(sql: "PRAGMA synchronous = FULL")
                return try result.get()
            }
        } catch {
            throw StoreError(error, subject: subject())
        }
    }

    /// Runs `value` in one read transaction on a reader connection, concurrently with other
    /// reads and with the writer: it sees the database as of its start. A `bounded` read is
    /// stopped at `queryTimeout` (`.timedOut`).
    func read<T>(
        _ subject: @autoclosure () -> StoreError.Subject, bounded: Bool = true, _ value: (Database) throws -> T
    ) throws(StoreError) -> T {
        do {
            if readsOnWriter {
                return try writer.writeWithoutTransaction { db in try Self.inReadTransaction(db, value) }
            }
            return try readers.read(budget: bounded ? queryTimeout : nil) { db in try Self.inReadTransaction(db, value) }
        } catch {
            throw StoreError(error, subject: subject())
        }
    }

    /// What `DatabasePool.read` does, with BEGIN and COMMIT prepared once per connection instead
    /// of at every read (GRDB's `read` compiles both each time: a third of a one-entry read).
    static func inReadTransaction<T>(_ db: Database, _ value: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        do {
            let result = try value(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute()
            throw error
        }
    }

    /// The clock's time, as stored: whole seconds, with its RFC 3339 text.
    func now() -> (date: Date, text: String) {
        let date = Date(timeIntervalSince1970: clock().timeIntervalSince1970.rounded(.down))
        return (date, RFC3339.string(from: date))
    }

    /// A timestamp column read back. The schema's CHECKs only let RFC 3339 text in, so a failure
    /// here means the file was damaged or edited by hand.
    static func date(_ text: String, column: String) throws -> Date {
        guard let date = StoredDate.parse(text) ?? RFC3339.date(from: text) else {
            throw CorruptValue(column: column, value: text)
        }
        return date
    }
}
