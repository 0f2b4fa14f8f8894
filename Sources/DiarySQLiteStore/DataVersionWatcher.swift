import CSQLiteConfig
import GRDB
import Synchronization

/// Tells when anything committed to the file: the store's writer, or any other process on it.
///
/// It reads the WAL-index header, the 48 bytes at the start of the `-shm` file that every commit
/// rewrites (its frame count, salts and checksum), from a mapping that a read-only connection of
/// its own keeps: a memory read per call. SQLite itself decides whether a read transaction sees
/// a new database by comparing this header (walformat.html, "the WAL-index header"). The
/// alternative, `PRAGMA data_version` on a reader connection, opens and closes a read
/// transaction, two `fcntl` locks on the file: 18 % of the instructions of a cached list page
/// (callgrind), and the system calls on top. It remains the way when the file has no WAL index
/// (`versionAskingSQLite`).
///
/// What `version()` answers is a generation, bumped whenever the header is not the one last
/// seen. It is never behind a commit that finished before the call: the commit rewrote the
/// header before it returned, so the header read now differs from any seen before the commit,
/// or it was seen by an earlier call that bumped the generation then. A header read half-way
/// through a commit only looks changed twice, which costs an extra rebuild.
final class DataVersionWatcher: Sendable {
    private let readers: ReaderConnections
    private let path: String
    private let generation = Atomic<Int64>(0)
    private let walIndex = Mutex<WALIndex>(.notMapped)

    /// The mapping of the WAL-index header and the header as last seen, once mapped.
    private enum WALIndex {
        case notMapped
        case mapped(connection: DatabaseQueue, header: UnsafeRawPointer, lastSeen: Header)
        /// No WAL index here (not WAL mode, or the mapping failed), or the store closed.
        case unavailable
    }

    /// The header's 48 bytes, compared whole.
    private typealias Header = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    init(readers: ReaderConnections, path: String) {
        self.readers = readers
        self.path = path
    }

    func version() throws -> Int64 {
        let watched = walIndex.withLock { walIndex -> Bool in
            if case .notMapped = walIndex {
                walIndex = Self.map(path)
            }
            guard case .mapped(let connection, let header, let lastSeen) = walIndex else { return false }
            let seen = Self.read(header)
            if seen != lastSeen {
                // Bumped before the next caller can compare: one that finds the header equal
                // to `lastSeen` knows the generation already moved past it.
                generation.add(1, ordering: .sequentiallyConsistent)
                walIndex = .mapped(connection: connection, header: header, lastSeen: seen)
            }
            return true
        }
        if !watched {
            try versionAskingSQLite()
        }
        return generation.load(ordering: .sequentiallyConsistent)
    }

    /// Closes the connection that keeps the mapping; later calls ask SQLite (and fail once the
    /// readers are closed too).
    func close() throws {
        let mapped = walIndex.withLock { walIndex -> DatabaseQueue? in
            defer { walIndex = .unavailable }
            guard case .mapped(let connection, _, _) = walIndex else { return nil }
            return connection
        }
        try mapped?.close()
    }

    /// Opens a read-only connection, reads once (which maps its WAL index), and takes the
    /// mapping; `.unavailable` when any of it fails, with the connection closed.
    private static func map(_ path: String) -> WALIndex {
        guard let connection = try? DatabaseQueue(path: path, configuration: SQLiteDiaryStore.configuration(readonly: true)) else {
            return .unavailable
        }
        let header = try? connection.inDatabase { db -> UnsafeRawPointer? in
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" else { return nil }
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            return diary_sqlite_wal_index(db.sqliteConnection.map { UnsafeMutableRawPointer($0) }).map { UnsafeRawPointer($0) }
        }
        guard let header else {
            try? connection.close()
            return .unavailable
        }
        return .mapped(connection: connection, header: header, lastSeen: read(header))
    }

    private static func read(_ header: UnsafeRawPointer) -> Header {
        (
            header.loadUnaligned(fromByteOffset: 0, as: UInt64.self), header.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            header.loadUnaligned(fromByteOffset: 16, as: UInt64.self), header.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
            header.loadUnaligned(fromByteOffset: 32, as: UInt64.self), header.loadUnaligned(fromByteOffset: 40, as: UInt64.self)
        )
    }

    /// `PRAGMA data_version` on an idle reader connection, bumping the generation when that
    /// connection's number moved. Each connection's number moves on its own, so one commit may
    /// bump it once per connection (an extra rebuild); a connection's first answer counts as a
    /// change, so the generation is never behind a commit that finished before the call.
    private func versionAskingSQLite() throws {
        try readers.withReader { reader in
            let seen = try reader.queue.inDatabase { db in
                try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
            }
            if seen != reader.lastSeenDataVersion {
                reader.lastSeenDataVersion = seen
                generation.add(1, ordering: .sequentiallyConsistent)
            }
        }
    }
}
