import DiaryStore
import GRDB
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `SQLiteBackup` in process: the file a backup makes, and the temporary-file rules behind
/// it. (The commands, servers and kills are `EndToEndTests`' BackupTests.)
@Suite struct SQLiteBackupTests {
    /// A backup of an open store holds its rows, is one file with a rollback journal (header
    /// bytes 18 and 19 are 1, no -wal beside it) and passes the check; the store keeps writing.
    @Test func aBackupOfAnOpenStoreIsOneCheckedFileAndTheStoreKeepsWriting() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteDiaryStore(path: directory.databasePath)
            let user = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let diary = try #require(try store.diaries(viewerID: nil).first)
            _ = try store.createEntry(userID: user.id, diaryID: diary.id, title: "before", body: "")
            let output = directory.url.appendingPathComponent("backup.sqlite3").path
            let summary = try SQLiteBackup.backup(database: directory.databasePath, to: output)
            #expect(summary.users == 1 && summary.diaries == 1 && summary.entries == 1 && summary.schemaVersions == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11"])
            _ = try store.createEntry(userID: user.id, diaryID: diary.id, title: "after", body: "")

            let header = try Data(contentsOf: URL(fileURLWithPath: output)).prefix(20)
            #expect(header[18] == 1 && header[19] == 1)
            #expect(!FileManager.default.fileExists(atPath: output + "-wal"))
            let check = try DatabaseCheck.check(path: output)
            #expect(check.isOK && check.summary?.entries == 1, "\(check.problems)")
            try store.close()
        }
    }

    /// A Diary database from a newer binary (a migration this one does not know) fails the
    /// check, and restore refuses it: this binary would serve a schema it does not understand.
    @Test func aSchemaNewerThanThisBinaryKnowsFailsTheCheckAndIsNotRestored() throws {
        try withTemporaryDirectory { directory in
            try SQLiteDiaryStore(path: directory.databasePath).close()
            let newer = directory.url.appendingPathComponent("newer.sqlite3").path
            try SQLiteBackup.backup(database: directory.databasePath, to: newer)
            let queue = try DatabaseQueue(path: newer)
            try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v12')") }
            try queue.close()

            let check = try DatabaseCheck.check(path: newer)
            #expect(check.problems == ["schema: v12 is newer than this diary-server knows (v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11)"])
            let restored = directory.url.appendingPathComponent("restored.sqlite3").path
            #expect(throws: BackupError.self) { try SQLiteBackup.restore(newer, to: restored) }
            #expect(!FileManager.default.fileExists(atPath: restored))
        }
    }

    @Test func theWriterOfATemporaryFileIsReadFromItsName() {
        #expect(BackupFiles.writerPID(ofTemporary: ".backup.sqlite3.4242.partial") == 4242)
        #expect(BackupFiles.writerPID(ofTemporary: ".diary-20261125T070000.123Z.sqlite3.7.partial-journal") == 7)
        #expect(BackupFiles.writerPID(ofTemporary: ".diary.sqlite3.99.restoring-wal") == 99)
        #expect(BackupFiles.writerPID(ofTemporary: ".backup.sqlite3.partial") == nil)
        #expect(BackupFiles.writerPID(ofTemporary: "backup.sqlite3") == nil)
        #expect(BackupFiles.writerPID(ofTemporary: ".notes.12.txt") == nil)
    }

    /// A dead process's temporary files go; a live one's (this process's), other names and
    /// finished backups stay.
    @Test func onlyTheTemporaryFilesOfProcessesThatAreGoneAreRemoved() throws {
        try withTemporaryDirectory { directory in
            // A child that has exited and been waited for: its PID names no process (until reused).
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/true")
            try child.run()
            child.waitUntilExit()
            let dead = child.processIdentifier
            let names = [
                ".backup.sqlite3.\(dead).partial", ".backup.sqlite3.\(dead).partial-journal", ".backup.sqlite3.\(getpid()).partial",
                ".other.sqlite3.\(dead).partial", "backup.sqlite3",
            ]
            for name in names {
                #expect(FileManager.default.createFile(atPath: directory.url.appendingPathComponent(name).path, contents: Data()))
            }
            BackupFiles.removeAbandonedTemporaries(in: directory.url, prefix: "backup.sqlite3.")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            #expect(left == [".backup.sqlite3.\(getpid()).partial", ".other.sqlite3.\(dead).partial", "backup.sqlite3"])
        }
    }

    /// Scheduled backups' names sort as their times do, to the millisecond.
    @Test func scheduledBackupNamesSortByTime() {
        let times = [0, 0.001, 0.999, 1, 59, 3600, 86_400 * 400].map { Date(timeIntervalSince1970: 1_700_000_000 + $0) }
        let names = times.map(ScheduledBackups.fileName(at:))
        #expect(names == names.sorted() && Set(names).count == names.count, "\(names)")
        #expect(ScheduledBackups.fileName(at: Date(timeIntervalSince1970: 0)) == "diary-19700101T000000.000Z.sqlite3")
    }
}
