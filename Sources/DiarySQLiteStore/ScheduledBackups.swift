import CalendarTime
import Foundation

/// Backups a server takes of its own database on a thread of their own: one at start, then one
/// every `interval`, named by their time (`diary-20260101T000000.000Z.sqlite3`, so that names sort
/// by age), keeping the newest `keep`. A failed backup is logged and counted; the server goes on.
public final class ScheduledBackups: @unchecked Sendable {
    /// The counts so far, for metrics to read (`counts`).
    public struct Counts: Sendable, Equatable {
        public var taken = 0
        public var failed = 0
        /// When the last backup that succeeded finished.
        public var lastSuccess: Date?
    }

    public static let filePrefix = "diary-"
    public static let fileSuffix = ".sqlite3"

    private let database: String
    private let directory: URL
    private let interval: TimeInterval
    private let keep: Int
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var isStopped = false
    private var isFinished = false
    private var currentCounts = Counts()

    public init(database: String, directory: String, interval: TimeInterval, keep: Int, log: @escaping @Sendable (String) -> Void) {
        self.database = database
        self.directory = URL(fileURLWithPath: directory)
        self.interval = interval
        self.keep = keep
        self.log = log
    }

    public var counts: Counts {
        condition.withLock { currentCounts }
    }

    /// Starts the thread; `stop()` ends it.
    public func start() {
        let thread = Thread { [self] in run() }
        thread.name = "diary-backups"
        thread.start()
    }

    /// Stops the schedule; a backup under way stops at its next step, leaving no file (and no
    /// count: it did not fail). Returns once the thread is done.
    public func stop() {
        condition.withLock {
            isStopped = true
            condition.broadcast()
            while !isFinished { condition.wait() }
        }
    }

    private func run() {
        var next = Date()
        while condition.withLock({ waitUntil(next) }) {
            next = Date() + interval
            takeOne()
        }
        condition.withLock {
            isFinished = true
            condition.broadcast()
        }
    }

    /// Waits until `date` or a stop (the lock held); true when it is time for a backup.
    private func waitUntil(_ date: Date) -> Bool {
        while !isStopped && condition.wait(until: date) {}
        return !isStopped
    }

    private func takeOne() {
        do {
            try makeDirectory()
            let file = directory.appendingPathComponent(Self.fileName(at: Date()))
            let summary = try SQLiteBackup.backup(database: database, to: file.path) { [self] in
                condition.withLock { !isStopped }
            }
            condition.withLock {
                currentCounts.taken += 1
                currentCounts.lastSuccess = Date()
            }
            log("backup \(file.path): \(summary.description)")
        } catch {
            guard condition.withLock({ !isStopped }) else { return }
            condition.withLock { currentCounts.failed += 1 }
            log("backup failed: \(error)")
            return
        }
        do {
            try removeOldBackups()
        } catch {
            // The backup is there and counted; the folder only holds more than --backup-keep.
            log("cannot remove an old backup: \((error as NSError).localizedDescription)")
        }
    }

    /// Makes the folder when missing; says so in one line when it cannot, or is a file.
    private func makeDirectory() throws(BackupError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw BackupError("\(directory.path) is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BackupError("cannot make the folder \(directory.path): \((error as NSError).localizedDescription)")
        }
    }

    /// `diary-YYYYMMDDTHHMMSS.mmmZ.sqlite3`, in UTC, to the nearest millisecond.
    static func fileName(at date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let time = CalendarTime(secondsSince1970: Int(milliseconds / 1000))
        let stamp = String(
            format: "%04ld%02ld%02ldT%02ld%02ld%02ld.%03ldZ", time.year, time.month, time.day, time.hour, time.minute, time.second,
            Int(milliseconds % 1000))
        return filePrefix + stamp + fileSuffix
    }

    /// The backups in the folder, oldest first.
    public static func backups(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix(filePrefix) && $0.hasSuffix(fileSuffix) }
            .sorted()
    }

    private func removeOldBackups() throws {
        for name in try Self.backups(in: directory.path).dropLast(keep) {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }
}
