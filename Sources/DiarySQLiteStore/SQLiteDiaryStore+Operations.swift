import DiaryStore
import Foundation
import GRDB

/// Readiness and metrics on SQLite.
extension SQLiteDiaryStore: OperatedStore {
    /// A store closed or opened read-only, a file or folder that cannot be written (SQLite writes its
    /// `-wal` and `-shm` files beside the database), or the write lock held by any connection,
    /// in this process or another, for longer than `bound`. The lock is tried on a connection
    /// of its own with `BEGIN IMMEDIATE` and `ROLLBACK`: it waits for no queue of this
    /// process and writes nothing, so the data version (and the response cache) stays as it is.
    public func checkWritable(within bound: Duration) throws(StoreError) {
        let subject = StoreError.Subject.operation("database \(path)")
        if isReadOnly {
            throw StoreError(.unavailable, subject, detail: "the database was opened read-only")
        }
        // A closed store, or a file gone bad, fails here, without waiting on the writer.
        try read(subject) { _ in }
        let folder = (path as NSString).deletingLastPathComponent
        for (name, file) in [("folder", folder.isEmpty ? "." : folder), ("file", path)] where access(file, W_OK) != 0 {
            throw StoreError(.unavailable, subject, detail: "the database \(name) cannot be written (\(String(cString: strerror(errno))))")
        }
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(TimeInterval(bound.components.seconds) + TimeInterval(bound.components.attoseconds) / 1e18)
            let probe = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? probe.close() }
            try probe.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw StoreError(.unavailable, subject, detail: "another connection has held the write lock for more than \(bound)")
        } catch {
            throw StoreError(error, subject: subject)
        }
    }

    public func statistics() throws(StoreError) -> StoreStatistics {
        let (users, entries) = try read(.operation("database \(path)")) { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM users") ?? 0, try Int.fetchOne(db, sql: "SELECT count(*) FROM entries") ?? 0)
        }
        var statistics = StoreStatistics(users: users, entries: entries)
        statistics.writesWaiting = groupCommit.queuedCount
        statistics.groupCommits = groupCommit.groupCount
        statistics.groupedWrites = groupCommit.groupedWriteCount
        return statistics
    }
}
