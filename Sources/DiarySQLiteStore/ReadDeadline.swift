import GRDB
import GRDBSQLite

/// The deadline of the read under way on one reader connection, which SQLite itself checks
/// while a statement runs: a read past it fails with `SQLITE_INTERRUPT` (`.timedOut`), and
/// the worker that ran it is free at once.
///
/// A progress handler rather than `interrupt()` from a timer: it needs no thread and no timer
/// per read, and it can only stop the statement of its own connection, while a timer firing
/// late could stop the next read on a connection already handed on. It fails the statement
/// alone (unlike `sqlite3_interrupt`, it leaves no flag set on the connection), so the
/// connection serves the next read as before.
final class ReadDeadline {
    /// Virtual-machine instructions between two checks of the clock: a check reads the
    /// monotonic clock (tens of nanoseconds), and 1,000 instructions take microseconds, so the
    /// checks cost well under 1 % of a read and a statement overruns its deadline by microseconds.
    static let instructionsPerCheck: Int32 = 1000

    /// When the running statement stops; nil: no deadline. Read and written by the thread
    /// holding the connection only.
    private var deadline: ContinuousClock.Instant?

    /// Makes SQLite consult this deadline while `db`'s statements run. `db` must not outlive it
    /// (the reader holds both).
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_progress_handler(db.sqliteConnection, Self.instructionsPerCheck, { context in
            guard let context else { return 0 }
            guard let deadline = Unmanaged<ReadDeadline>.fromOpaque(context).takeUnretainedValue().deadline else { return 0 }
            return ContinuousClock.now >= deadline ? 1 : 0
        }, context)
    }

    /// Runs `body` with statements stopped once `budget` has passed.
    func within<T>(_ budget: Duration, _ body: () throws -> T) rethrows -> T {
        deadline = .now + budget
        defer { deadline = nil }
        return try body()
    }
}
