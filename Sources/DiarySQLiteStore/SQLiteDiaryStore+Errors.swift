import DiaryStore
import GRDB
import StoreKernel

extension StoreError {
    /// Any error met by the store, as the `StoreError` the protocol throws.
    ///
    /// A `StoreError` passes unchanged; a UNIQUE violation is `.conflict` (the store checks names
    /// and tokens first, so this only happens in a race with another process); everything else
    /// means the database cannot serve the call now, and is `.unavailable` with the reason in
    /// `detail`: disk full, read-only file, I/O error, lock held past the busy timeout, file that
    /// cannot be opened, damaged file, closed store.
    ///
    /// The detail names SQLite's result code and message, never statement arguments, so no
    /// token hash or entry text can reach a log through it.
    init(_ error: any Error, subject: Subject) {
        switch error {
        case let error as StoreError:
            self = error
        case let error as DatabaseError:
            self.init(error, subject: subject)
        case let error as CorruptValue:
            self.init(error, subject: subject)
        case is RowDecodingError:
            // Its description shows the row's values: keep them out of the logs.
            self.init(.unavailable, subject, detail: "the database file is damaged: a row has an unexpected value")
        default:
            self.init(.unavailable, subject, detail: "\(error)")
        }
    }

    init(_ error: DatabaseError, subject: Subject) {
        if error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            self.init(.conflict, subject, detail: error.message ?? "")
            return
        }
        if error.resultCode == .SQLITE_INTERRUPT {
            // Only a reader's deadline (`ReadDeadline`) stops a statement.
            self.init(.timedOut, subject, detail: "SQLite stopped the read at its deadline")
            return
        }
        let reason = switch error.resultCode {
        case .SQLITE_FULL: "the disk is full"
        case .SQLITE_READONLY: "the database is read-only"
        case .SQLITE_IOERR: "input/output error"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            StoreError.lockHeldReason
        case .SQLITE_CANTOPEN: "the database file cannot be opened"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: "the database file is damaged or not a database"
        case .SQLITE_MISUSE where error.message == "Connection is closed": "the store is closed"
        case .SQLITE_CONSTRAINT: "the schema refused the change"
        default: "unexpected SQLite error"
        }
        self.init(.unavailable, subject, detail: "\(reason) (SQLite \(error.extendedResultCode): \(error.message ?? "no message"))")
    }
}

extension StoreError {
    /// The reason an SQLite store gives when another connection kept the write lock for longer
    /// than the store waits for it.
    static let lockHeldReason = "another connection held the database locked past the wait for it"

    /// True when an SQLite store could not get the write lock in time: another process is
    /// writing the file, and trying again when it is done is the remedy (the file is fine).
    public var isLockHeld: Bool { kind == .unavailable && detail.hasPrefix(Self.lockHeldReason) }
}
