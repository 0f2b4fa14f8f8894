import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO

/// `DiaryStore` on a PostgreSQL database (15 or later), through postgres-nio.
///
/// - Every protocol method is one transaction on one pooled connection, run on the caller's
///   thread (see `ConnectionPool`). Writes run at READ COMMITTED and lock what their checks
///   read (`SELECT … FOR UPDATE` on the entry, an advisory lock on an idempotency key), so no
///   other writer, in this process or another server, slips between a check and its change.
///   Reads that take more than one statement run in one REPEATABLE READ snapshot (a page and
///   its total agree). A statement waits at most `lockTimeout` for another's lock (then
///   `.unavailable`, as SQLite's busy timeout); an import locks out other writers of entries
///   while it runs, so that the ids it keeps are exactly those above every id given out.
/// - Every writing transaction adds one to a row of `data_version` before it commits: what
///   `dataVersion()` reads, so that every server on the database sees every other's writes.
/// - The schema is brought up to date by versioned migrations when a store opens, under an
///   advisory lock, so that servers starting together apply each migration once.
public final class PostgresDiaryStore: DiaryStore {
    /// The advisory lock (one bigint key) held by the transaction that migrates the schema.
    static let migrationLock: Int64 = 0x4469_6172_7901  // "Diary", 1
    /// The first key (of two int4 keys) of the advisory locks on idempotency keys.
    static let idempotencyLockClass: Int32 = 0x4469_6172  // "Diar"
    /// How long a statement waits, by default, for a lock another transaction holds before it fails.
    public static let defaultLockTimeout: TimeInterval = 5
    /// How long the store waits, by default, for the server at each step of a call: a free
    /// pooled connection, a new connection's login, each statement's answer.
    public static let defaultTimeout: TimeInterval = 5
    /// How long each write waits after its commit: `dataVersionLease`.
    static let versionLease = Duration.milliseconds(1)
    /// How many times a write that lost a deadlock is tried again.
    static let deadlockRetries = 3

    let pool: ConnectionPool
    let clock: @Sendable () -> Date
    /// How long one read's statement may run before the server stops it (`.timedOut`); nil: the
    /// session's statement_timeout (90 % of the pool's `timeout`) bounds it, as any statement.
    public let queryTimeout: Duration?
    /// The database, without its password: what errors and logs name.
    public let url: PostgresURL

    /// Opens a pool of up to `poolSize` connections to the database at `url` and brings its
    /// schema up to date.
    ///
    /// - parameter poolSize: the most connections open at once: as many as threads call the store at once.
    /// - parameter lockTimeout: how long a statement waits for a lock another transaction holds
    ///   (a row another writer changes, an import) before the call fails with `.unavailable`,
    ///   as SQLite's busy timeout.
    /// - parameter timeout: how long a call waits for the server at each step (a free pooled
    ///   connection, a new connection up to its login, each statement's answer) before it fails
    ///   with `.unavailable`: a server that is down, frozen or out of connection slots costs a
    ///   caller that long at most, never a hang. The server stops a statement at 90 % of it
    ///   (`statement_timeout`, `.timedOut`); one left unanswered past it has its connection closed.
    ///   A lock wait longer than `lockTimeout` or `timeout`, whichever is shorter, fails too.
    /// - parameter queryTimeout: how long a statement of a read transaction (a list, a search,
    ///   a count) may run: the server stops it then (`statement_timeout`), the call throws
    ///   `.timedOut`, and its connection goes back to the pool whole. Writes keep their own bounds.
    /// - parameter clock: the time of new and changed rows (tests pass a fixed one).
    /// - throws: `.unavailable` when the server cannot be reached, refuses the login, or the
    ///   schema cannot be migrated. The message never holds the password.
    public init(
        url: PostgresURL, poolSize: Int = 8, lockTimeout: TimeInterval = defaultLockTimeout,
        timeout: TimeInterval = defaultTimeout, queryTimeout: Duration? = nil, clock: @escaping @Sendable () -> Date = Date.init
    ) throws(StoreError) {
        self.url = url
        self.clock = clock
        self.queryTimeout = queryTimeout
        let subject = StoreError.Subject.operation("database \(url)")
        do {
            pool = ConnectionPool(
                configuration: try Self.configuration(url, lockTimeout: min(lockTimeout, timeout), timeout: timeout),
                maximumCount: poolSize, timeout: timeout, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: Self.logger
            )
        } catch {
            throw StoreError(error, subject: subject)
        }
        do {
            try pool.withConnection { pooled, _ in
                try Self.migrate(SQLSession(pooled, logger: Self.logger, timeout: max(timeout, Self.maintenanceTimeout)))
            }
        } catch {
            pool.close()
            throw StoreError(error, subject: subject)
        }
    }

    /// Opens the database at a `postgres://` or `postgresql://` URL.
    public convenience init(
        url text: String, poolSize: Int = 8, timeout: TimeInterval = defaultTimeout, queryTimeout: Duration? = nil,
        clock: @escaping @Sendable () -> Date = Date.init
    ) throws(StoreError) {
        let url: PostgresURL
        do {
            url = try PostgresURL(text)
        } catch {
            throw StoreError(.unavailable, .operation("database URL"), detail: error.description)
        }
        try self.init(url: url, poolSize: poolSize, timeout: timeout, queryTimeout: queryTimeout, clock: clock)
    }

    /// Closes every connection. Any later call throws `.unavailable`.
    public func close() {
        pool.close()
    }

    deinit {
        pool.close()
    }

    public var dataVersionLease: Duration { Self.versionLease }

    public func dataVersion() throws(StoreError) -> Int64 {
        try statement(.operation("data version")) { session in
            try session.one((Int64).self, Self.dataVersionSQL) ?? 0
        }
    }

    /// What `dataVersion()` reads (before every kept answer a server serves).
    static let dataVersionSQL = PreparedSQL("SELECT sum(version)::bigint FROM data_version")

    /// What every write does before its COMMIT (see `write`): $1 the session's slot. Only when
    /// the transaction wrote something (it has an id then): a post that found no diary writes
    /// nothing, and a refused write must not empty every server's cache. Last, after every
    /// other lock of the transaction (a statement's foreign-key checks included), so that the
    /// row is held only from here to COMMIT and writers take locks in one order. The
    /// transaction's id and the server's start answer whether it was kept if COMMIT's answer is lost.
    static let moveDataVersionSQL = PreparedSQL("""
        UPDATE data_version SET version = version + 1 WHERE slot = $1::smallint AND txid_current_if_assigned() IS NOT NULL
        RETURNING txid_current(), pg_postmaster_start_time()
        """)

    /// "ok", or one line per diary whose kept counts disagree with its entries: for tests and
    /// maintenance, as SQLite's `integrityCheck()`.
    public func consistencyCheck() throws(StoreError) -> String {
        try read(.operation("consistency check"), bounded: false) { session in
            let rows = try session.query("""
                SELECT d.diary_id, d.entry_count, d.public_count, count(e.entry_id)::integer,
                count(e.entry_id) FILTER (WHERE e.visibility = 'public')::integer
                FROM diary_totals d LEFT JOIN entries e ON e.diary_id = d.diary_id
                GROUP BY d.diary_id, d.entry_count, d.public_count HAVING d.entry_count <> count(e.entry_id)
                OR d.public_count <> count(e.entry_id) FILTER (WHERE e.visibility = 'public')
                ORDER BY d.diary_id
                """)
            let problems = try rows.map { row in
                let (id, kept, keptPublic, counted, countedPublic) = try row.decode((Int64, Int, Int, Int, Int).self)
                return "diary \(id): entry_count \(kept), public_count \(keptPublic); counted \(counted), \(countedPublic) public"
            }
            return problems.isEmpty ? "ok" : problems.joined(separator: "\n")
        }
    }
}

// MARK: - Opening

extension PostgresDiaryStore {
    /// The store logs nothing of its own: errors reach the caller as `StoreError`s. postgres-nio
    /// logs below `.critical` only, and its debug lines may hold SQL: this logger drops them.
    static let logger: Logger = {
        var logger = Logger(label: "diary.postgres")
        logger.logLevel = .critical
        return logger
    }()

    static func configuration(
        _ url: PostgresURL, lockTimeout: TimeInterval = defaultLockTimeout, timeout: TimeInterval = defaultTimeout
    ) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch url.tlsMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password(), database: url.database, tls: tls
        )
        // postgres-nio holds this deadline until the login is done, not only for TCP's connect:
        // a frozen server, which the kernel still lets connect, fails here too.
        configuration.options.connectTimeout = .milliseconds(Int64(max(timeout, 0.001) * 1000))
        // As SQLite's busy timeout: a write that waits longer for another's lock fails
        // (.unavailable) rather than holding its worker thread for as long as the other takes.
        // synchronous_commit on, whatever postgresql.conf says: a write is answered 2xx only
        // once its COMMIT is flushed, so a crash (of the server or of PostgreSQL) loses none.
        // statement_timeout at 90 % of `timeout`: a server that is only slow stops the statement
        // itself (57014, `.timedOut`) before the store's own deadline, and keeps the connection;
        // so a statement left unanswered past `timeout` means a silent server, never a slow
        // query (slow searches were taken for a frozen database, failing unrelated calls).
        // No JIT: a request is one short statement, which compiling costs more than it saves.
        // At a million entries a search through the chunk index (whose functions are priced
        // high, so that the planner does not call them per entry) was compiled in each of its
        // parallel workers: 130 ms, against 38 without JIT.
        configuration.options.additionalStartupParameters = [
            ("lock_timeout", "\(max(Int(lockTimeout * 1000), 1))ms"), ("synchronous_commit", "on"), ("application_name", "diary"),
            ("statement_timeout", "\(max(Int(timeout * 900), 1))ms"), ("jit", "off"),
        ]
        return configuration
    }
}

// MARK: - Transactions

extension PostgresDiaryStore {
    /// Runs `updates` in a READ COMMITTED transaction that adds one to a `data_version` row
    /// before it commits, if it wrote anything (`moveDataVersionSQL`); it returns once the
    /// commit is acknowledged. What `updates` sends without waiting is waited for with COMMIT. Any error rolls back
    /// everything and is thrown as a `StoreError` about `subject`. A transaction the server
    /// chose as a deadlock's victim is run again (nothing of it was kept).
    ///
    /// When the answer to COMMIT is lost (PostgreSQL stopped, restarted or went silent just
    /// then), the server is asked on another connection what became of the transaction: a
    /// kept write returns as if acknowledged, one rolled back throws `.unavailable` with
    /// nothing written, and only when the server cannot tell within the timeout does the error
    /// say the write may have been kept.
    func write<T>(_ subject: @autoclosure () -> StoreError.Subject, _ updates: (SQLSession) throws -> T) throws(StoreError) -> T {
        var attempt = 0
        while true {
            attempt += 1
            // What the transaction did, kept outside it for when COMMIT's answer is lost.
            var version: SQLSession.Answer?
            var outcome: T?
            do {
                let result = try withSession { session in
                    try Self.inTransaction(session, begin: "BEGIN") {
                        let result = try updates(session)
                        // Sent with COMMIT, waited for before it (see inTransaction).
                        version = try session.send(Self.moveDataVersionSQL, [session.slot])
                        outcome = result
                        return result
                    }
                }
                Self.waitOutLease()
                return result
            } catch where Self.isRetryable(error) && attempt <= Self.deadlockRetries {
                continue
            } catch let error as CommitOutcomeUnknown {
                let transaction = try? version?.rows?.first?.decode((Int64, Date).self)
                guard let transaction, let outcome else { throw StoreError(error, subject: subject()) }
                switch committed(transaction.0, serverStarted: transaction.1) {
                case true?:
                    Self.waitOutLease()
                    return outcome
                case false?: throw StoreError(.unavailable, subject(), detail: "the connection was lost during COMMIT, which was rolled back")
                case nil: throw StoreError(error, subject: subject())
                }
            } catch {
                throw StoreError(error, subject: subject())
            }
        }
    }

    /// Blocks the calling thread (a worker, never an event loop) for `duration`.
    static func pause(_ duration: Duration) {
        Thread.sleep(forTimeInterval: Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// Waits `versionLease` after a write's commit, before it returns: see `dataVersionLease`.
    /// The connection is back in the pool by then. 1 ms lets a server answer the cached reads
    /// of a millisecond with one version round trip (instead of one each, which cost more than
    /// the reads themselves), for 1 ms more per write.
    static func waitOutLease() {
        pause(versionLease)
    }

    /// Whether transaction `id`, whose COMMIT went unanswered, was kept, as the server tells on
    /// another connection (`txid_status`): nil when it cannot tell within the pool's timeout,
    /// says the server is silent, or has restarted since the transaction ran (`serverStarted`
    /// is when the server it ran on started). After a crash, ids of transactions none of whose
    /// records reached the disk are given out again, so an id's status then may be another
    /// transaction's: a kept write would be reported lost, or a lost one kept. Asked again, a
    /// little later each time, while the server is away or the transaction is still finishing
    /// on the lost connection's backend.
    func committed(_ id: Int64, serverStarted: Date) -> Bool? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(pool.timeout * 1000))
        var pause = Duration.milliseconds(20)
        while true {
            do {
                let (status, started) = try withSession { session -> (String?, Date?) in
                    let row = try session.query("SELECT txid_status($1), pg_postmaster_start_time()", [id]).first
                    return try row?.decode((String?, Date).self) ?? (nil, nil)
                }
                guard started == serverStarted else { return nil }
                switch status {
                case "committed"?: return true
                case "aborted"?: return false
                default: break  // "in progress": its backend is still ending it
                }
            } catch ConnectionPool.PoolError.silent {
                return nil
            } catch {
                // Down or restarting: ask again.
            }
            guard ContinuousClock.now + pause < deadline else { return nil }
            Self.pause(pause)
            pause = min(pause * 2, .milliseconds(500))
        }
    }

    /// Runs `value` in one read-only snapshot: every statement sees the same committed state.
    /// When `bounded`, each statement may run `queryTimeout` at most: the server stops it then
    /// (SQLSTATE 57014, `.timedOut`), and the transaction's ROLLBACK leaves the connection
    /// whole for the next call. The limit is `SET LOCAL`, sent behind BEGIN without a wait of
    /// its own, so it costs no round trip and ends with the transaction: writes and
    /// migrations never run under it.
    func read<T>(
        _ subject: @autoclosure () -> StoreError.Subject, bounded: Bool = true, _ value: (SQLSession) throws -> T
    ) throws(StoreError) -> T {
        // The session's own statement_timeout (90 % of the pool's timeout) bounds it already.
        let backstop = Duration.milliseconds(Int64(pool.timeout * 900))
        let limit = bounded ? queryTimeout.flatMap { $0 < backstop ? Self.statementTimeoutSQL($0) : nil } : nil
        do {
            return try withSession { session in
                try Self.inTransaction(session, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
                    if let limit { try session.send(limit) }
                    return try value(session)
                }
            }
        } catch {
            throw StoreError(error, subject: subject())
        }
    }

    /// `SET LOCAL statement_timeout` to `budget`, in whole milliseconds (at least 1: 0 would turn it off).
    static func statementTimeoutSQL(_ budget: Duration) -> String {
        let (seconds, attoseconds) = budget.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        return "SET LOCAL statement_timeout = \(milliseconds)"
    }

    /// Runs a read of one statement, which is its own transaction and snapshot: no BEGIN and
    /// COMMIT to wait for.
    func statement<T>(_ subject: @autoclosure () -> StoreError.Subject, _ value: (SQLSession) throws -> T) throws(StoreError) -> T {
        do {
            return try withSession(value)
        } catch {
            throw StoreError(error, subject: subject())
        }
    }

    /// Runs `body` on a pooled connection. When a reused connection turns out to be gone (the
    /// server restarted, or ended it while it sat idle, and the pool had not noticed yet),
    /// `body` runs again on another: the server rolled back whatever the lost connection had
    /// begun. Not when the loss came with COMMIT (`CommitOutcomeUnknown`): that write may have
    /// been kept.
    func withSession<T>(_ body: (SQLSession) throws -> T) throws -> T {
        var attempts = 0
        while true {
            attempts += 1
            var reused = false
            do {
                return try pool.withConnection { pooled, isNew in
                    reused = !isNew
                    return try body(SQLSession(pooled, logger: Self.logger, timeout: pool.timeout))
                }
            } catch where reused && Self.isConnectionLost(error) && attempts <= pool.maximumCount {
                continue
            }
        }
    }

    /// Runs `body` between `begin` and COMMIT. BEGIN is sent, not waited for: the body's first
    /// statement waits for both at once. COMMIT is sent behind whatever the body sent without
    /// waiting (the data version's UPDATE, in `write`); those are waited for first, and an error
    /// of theirs is the body's (postgres-nio sends COMMIT only once they are answered, so a
    /// COMMIT behind a failed one rolls back, or never reached the server); only then is
    /// COMMIT's own answer waited for, whose loss throws `CommitOutcomeUnknown`.
    static func inTransaction<T>(_ session: SQLSession, begin: String, _ body: () throws -> T) throws -> T {
        func giveUp(_ error: any Error, rollback: Bool) {
            // A connection that cannot roll back is closed, and so not reused. One closed by a
            // deadline is not asked: the server rolls back when it notices, and a ROLLBACK sent
            // there could wait another timeout (a write in flight at a freeze took twice as long).
            do {
                if error is SQLSession.NoAnswer {
                    SQLSession.close(session.connection, timeout: session.timeout)
                } else if rollback {
                    try session.execute("ROLLBACK")
                } else {
                    try session.waitForSent()
                }
            } catch {
                SQLSession.close(session.connection, timeout: session.timeout)
            }
        }
        try session.send(begin)
        let result: T
        do {
            result = try body()
        } catch {
            giveUp(error, rollback: true)
            throw error
        }
        let commit = try session.send("COMMIT")
        do {
            try session.waitForSent(before: commit)
        } catch {
            giveUp(error, rollback: false)  // COMMIT, already sent, ends the transaction: waits for its answer
            throw error
        }
        do {
            try session.wait(commit)
        } catch where isConnectionLost(error) {
            throw CommitOutcomeUnknown()
        } catch is SQLSession.NoAnswer {
            throw CommitOutcomeUnknown()
        }
        return result
    }

    /// The connection broke below SQL: closed by the server or the network, not an error of a statement.
    static func isConnectionLost(_ error: any Error) -> Bool {
        PostgresFailure(error)?.connectionLost ?? false
    }

    /// The connection was lost while COMMIT was under way: the server may have kept the write or not.
    struct CommitOutcomeUnknown: Error, CustomStringConvertible {
        var description: String { "the connection was lost during COMMIT: the change may or may not have been kept" }
    }

    /// A deadlock victim or a serialization failure: the transaction did nothing and may be run again.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let state = PostgresFailure(error)?.sqlState else { return false }
        return state == "40P01" || state == "40001"
    }

    /// The clock's time, as stored: whole seconds.
    func now() -> Date {
        Self.wholeSeconds(clock())
    }

    /// A date as the store keeps it: whole seconds.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
