import DiaryAPI
import DiarySQLiteStore
import DiaryStore
import Foundation

/// The CLI's local copy of what one user may read on one server: the project's own SQLite
/// store, so that offline lists and search answer as the server's do, filled from
/// `GET /api/changes` one page per transaction.
public final class Replica: Sendable {
    public let location: ReplicaLocation
    public let store: SQLiteDiaryStore

    /// How long a command waits for another `diary` writing the same copy (a sync from cron
    /// writing a page, an offline `add`) before it gives up. A page's transaction takes
    /// milliseconds on an idle machine and seconds on a loaded one; waiting is what a person
    /// running two commands expects, and the server's 5 s bound is for requests, not for them.
    public static let lockWait: TimeInterval = 60

    /// Opens (or makes) the replica: the folder 0700, the database and its journal files 0600
    /// (made under a umask of 077: nobody else may read a copy of someone's private entries).
    /// Its WAL is kept between runs (`keepingWAL`): each `diary` run opens and closes the file,
    /// and checkpointing at every close cost three fsyncs a run (see `SQLiteDiaryStore`). Reads
    /// run on the writer's connection (`readingOnWriter`): a run opens one connection, not two.
    ///
    /// The modes are set with `chmod` itself: `FileManager.setAttributes` casts its dictionary's
    /// values dynamically, about 270,000 instructions a call in this binary (callgrind), and a
    /// `diary list --offline` is some 45 million in all.
    public init(_ location: ReplicaLocation) throws {
        self.location = location
        if !FileManager.default.fileExists(atPath: location.folder.path) {
            try FileManager.default.createDirectory(at: location.folder, withIntermediateDirectories: true)
        }
        try Self.changeMode(of: location.folder.path, to: 0o700)
        let previous = umask(0o077)
        defer { umask(previous) }
        store = try SQLiteDiaryStore(path: location.file.path, lockWait: Self.lockWait, keepingWAL: true, readingOnWriter: true)
        try Self.changeMode(of: location.file.path, to: 0o600)
    }

    static func changeMode(of path: String, to mode: mode_t) throws {
        guard chmod(path, mode) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM)])
        }
    }

    /// One line saying why the copy at `location` could not be opened, and what to do: wait for
    /// the other `diary` holding it, or, for a damaged file, start afresh.
    public static func cannotOpen(_ location: ReplicaLocation, _ error: any Error) -> String {
        if let error = error as? StoreError, error.isLockHeld {
            return "the local copy \(location.file.path) is busy: another diary command kept it for over \(Int(lockWait)) s; try again when it ends"
        }
        return "the local copy \(location.file.path) cannot be opened (\(error)); run: diary sync --reset"
    }

    /// Throws the replica away: its file and journal files. The next sync starts from the beginning.
    public static func remove(_ location: ReplicaLocation) throws {
        for suffix in ["", "-wal", "-shm"] {
            let path = location.file.path + suffix
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        }
    }

    public func close() {
        try? store.close()
    }
}

/// Pulls the change feed into a replica, page after page, each applied in its own transaction.
public struct ReplicaSync: Sendable {
    /// What a sync did.
    public struct Outcome: Sendable, Equatable {
        public var changes = 0
        /// True when the server had dropped tombstones the replica's cursor needed, and the
        /// sync started again from the beginning on an emptied replica.
        public var restarted = false
    }

    /// The server said the cursor is too old (410): the caller maps its client's error to this.
    public struct CursorExpired: Error {
        public init() {}
    }

    public init() {}

    /// Syncs `replica` through `fetch` (one page of `GET /api/changes` after a cursor) until the
    /// server says nothing more follows. A failure leaves every page before it applied.
    /// On a 410, the replica is emptied (`reopen` makes a fresh one) and the sync starts over.
    /// `owner`: the token's user name (nil without a token).
    ///
    /// The next page is asked for as soon as a page's cursor is known, and comes while this one
    /// is written: the server's work (and the network's) overlaps the client's. The replica's
    /// cursor still moves only with the page it belongs to, in that page's transaction.
    public func run(
        _ replica: Replica, owner: String?, now: () -> Date = Date.init,
        fetch: @escaping @Sendable (ChangeCursor?) async throws -> ChangePage, reopen: () throws -> Replica
    ) async throws -> (Outcome, Replica) {
        var replica = replica
        var outcome = Outcome()
        var cursor = try replica.store.replicaState().cursor.flatMap(ChangeCursor.init)
        var prefetched: Task<ChangePage, any Error>?
        defer { prefetched?.cancel() }
        while true {
            let page: ChangePage
            do {
                if let task = prefetched {
                    prefetched = nil
                    page = try await task.value
                } else {
                    page = try await fetch(cursor)
                }
            } catch is CursorExpired where !outcome.restarted {
                replica.close()
                try Replica.remove(replica.location)
                replica = try reopen()
                outcome.restarted = true
                cursor = nil
                continue
            }
            guard let next = page.nextCursor else {
                throw InvalidPage(detail: "its next cursor '\(page.next.prefix(40))' is not one")
            }
            if page.more { prefetched = Task { try await fetch(next) } }
            try replica.store.applyReplicated(page.changes, cursor: next.description, syncedAt: now(), owner: owner)
            outcome.changes += page.changes.count
            cursor = next
            if !page.more { return (outcome, replica) }
        }
    }

    /// A page the server sent that cannot be applied; nothing of it was.
    public struct InvalidPage: Error, CustomStringConvertible {
        public var detail: String
        public var description: String { "the server's change page cannot be applied: \(detail)" }
    }
}
