import Foundation
import GRDB

/// Group commit: writes that arrive while another is committing wait, then run together in the
/// next transaction, one savepoint each, so that one fsync makes all of them durable.
///
/// With `synchronous = FULL` a commit costs an fsync (0.2 ms on a quiet disk, several ms on a
/// busy one), so one transaction per write caps the rate at one write per fsync. Grouping keeps
/// every guarantee of `SQLiteDiaryStore.write`: a write returns only once the transaction that
/// holds it is on disk, and a write that throws has changed nothing (its savepoint was rolled
/// back, or the whole group's commit failed).
///
/// The first caller that finds no group running leads: it takes every queued write, its own
/// included, runs them in order on the writer connection, commits, and wakes the others.
final class GroupCommit: @unchecked Sendable {
    /// One caller's write, run by whichever thread leads its group.
    private final class Job {
        let updates: (Database) throws -> Void
        var error: (any Error)?
        var done = false

        init(_ updates: @escaping (Database) throws -> Void) {
            self.updates = updates
        }
    }

    /// The most writes one transaction takes; later ones wait for the next group.
    static let maximumGroupSize = 256

    private let condition = NSCondition()
    private var queue: [Job] = []
    private var leading = false
    private var groups = 0
    private var groupedWrites = 0

    /// The transactions run so far, and the writes waiting for the next one: for tests.
    var groupCount: Int { locked { groups } }
    var queuedCount: Int { locked { queue.count } }
    /// Writes committed in groups so far: over `groupCount`, the mean group size (for metrics).
    var groupedWriteCount: Int { locked { groupedWrites } }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// Runs `updates` in a savepoint of the next group's transaction and returns once that
    /// transaction committed. Throws what `updates` threw, or the group's commit error.
    func write<T>(_ writer: any DatabaseWriter, _ updates: (Database) throws -> T) throws -> T {
        var result: T?
        let error: (any Error)? = withoutActuallyEscaping(updates) { updates in
            let job = Job { db in result = try updates(db) }
            condition.lock()
            defer { condition.unlock() }
            queue.append(job)
            while !job.done {
                if leading {
                    condition.wait()
                    continue
                }
                leading = true
                let group = Array(queue.prefix(Self.maximumGroupSize))
                queue.removeFirst(group.count)
                condition.unlock()
                Self.run(group, on: writer)
                condition.lock()
                for member in group {
                    member.done = true
                }
                groups += 1
                groupedWrites += group.count
                leading = false
                condition.broadcast()
            }
            return job.error
        }
        if let error { throw error }
        return result!
    }

    /// One transaction for the whole group, each write in a savepoint so that a failing one is
    /// undone alone. When SQLite aborted the transaction itself (disk full, I/O error), the
    /// writes not yet run are not run; when the transaction fails, every write of the group
    /// fails, with its own error if it had one.
    private static func run(_ group: [Job], on writer: any DatabaseWriter) {
        do {
            try writer.write { db in
                if group.count == 1 {
                    // Alone, a write needs no savepoint: its error rolls the transaction back.
                    return try group[0].updates(db)
                }
                for job in group {
                    do {
                        try db.inSavepoint {
                            try job.updates(db)
                            return .commit
                        }
                    } catch {
                        job.error = error
                        if !db.isInsideTransaction { throw error }
                    }
                }
            }
        } catch {
            for job in group where job.error == nil {
                job.error = error
            }
        }
    }
}
