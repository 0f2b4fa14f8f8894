import Foundation
import StoreTestSupport
import Testing

/// `diary-server restore` and `check` on real files, and a backup onto a disk that fills.
@Suite(.serialized, .enabled(if: TestEngine.current == .sqlite, "backups, restores and checks are of SQLite files"))
struct RestoreAndCheckTests {
    /// Restore refuses while a server has the database open, and leaves it as it was; once the
    /// server is killed (its -wal still holding writes), the restore puts the backup in place
    /// and the next server serves exactly the backup, none of the old WAL.
    @Test func restoreRefusesWhileAServerHasTheDatabaseOpenAndReplacesItOnceStopped() throws {
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        #expect(try server.diary(["add", "kept", "--body", "in the backup"], token: token).status == 0)
        let backup = server.directory.appendingPathComponent("backup.sqlite3").path
        #expect(try BackupFixtures.backup(server.database, to: backup).status == 0)
        #expect(try server.diary(["add", "lost", "--body", "after the backup"], token: token).status == 0)
        let before = try BackupFixtures.export(server, token: token)

        let refused = try run(Binaries.server, ["restore", backup, "--database", server.database])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("open in a running diary-server"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(try BackupFixtures.export(server, token: token) == before, "the refused restore changed the database")

        server.stop(signal: SIGKILL)
        let restored = try run(Binaries.server, ["restore", backup, "--database", server.database])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("users 1,"), "\(restored.stdout)")
        try server.start()
        let titles = try BackupFixtures.export(server, token: token).values.map { $0.contains(#""title":"kept""#) }
        #expect(titles == [true], "the restored database holds \(titles.count) entries")
        #expect(try BackupFixtures.temporaries(in: server.directory).isEmpty)
    }

    /// `check` says ok (exit 0) for a backup, and names the problem (exit 1) for the same file
    /// cut in half, for an SQLite database that is not Diary's, and for a missing file; restore
    /// refuses each of them and leaves the database it would have replaced alone, as a backup
    /// onto the database itself is refused.
    @Test func checkAndRestoreTellASoundBackupFromATruncatedAForeignAndAMissingFile() throws {
        try withTemporaryDirectory { folder in
            let database = folder.url.appendingPathComponent("live.sqlite3").path
            _ = try BackupFixtures.seed(database, entries: 500)
            let good = folder.url.appendingPathComponent("good.sqlite3").path
            #expect(try BackupFixtures.backup(database, to: good).status == 0)
            let sound = try run(Binaries.server, ["check", "--database", good])
            #expect(sound.status == 0 && sound.stdout.contains("entries 500,") && sound.stdout.hasSuffix("ok\n"), "\(sound.stdout)")

            let truncated = folder.url.appendingPathComponent("truncated.sqlite3").path
            let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
            let foreign = folder.url.appendingPathComponent("foreign.sqlite3").path
            let made = try run(URL(fileURLWithPath: "/usr/bin/python3"), [
                "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('create table notes(x)'); c.commit()", foreign,
            ])
            #expect(made.status == 0, "\(made.stderr)")
            let missing = folder.url.appendingPathComponent("missing.sqlite3").path
            let expected = [truncated: "problem:", foreign: "not a Diary database", missing: "no database at"]
            let live = try Data(contentsOf: URL(fileURLWithPath: database))
            for (file, reason) in expected {
                let checked = try run(Binaries.server, ["check", "--database", file])
                #expect(checked.status == 1, "check \(file): \(checked.stdout)")
                #expect((checked.stdout + checked.stderr).contains(reason), "check \(file): \(checked.stdout)\(checked.stderr)")
                let restored = try run(Binaries.server, ["restore", file, "--database", database])
                #expect(restored.status == 1 && restored.stderr.hasPrefix("error: "), "restore \(file): \(restored.stderr)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == live, "restore \(file) changed the database")
            }
            let ontoItself = try BackupFixtures.backup(database, to: database)
            #expect(ontoItself.status == 1 && ontoItself.stderr.contains("is the database itself"), "\(ontoItself.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == live, "a backup onto the database changed it")
            #expect(!FileManager.default.fileExists(atPath: missing), "check created the file it was asked about")
            #expect(try BackupFixtures.temporaries(in: folder.url).isEmpty)
        }
    }

    /// A backup onto a small tmpfs that fills: one line saying the disk is full, exit 1, the
    /// backup already there unchanged, nothing under the new name nor a temporary file left.
    @Test(.enabled(if: SmallDisk.canMount, "needs root and mount(8) to make a small tmpfs"))
    func aBackupOntoADiskThatFillsFailsCleanly() throws {
        try withTemporaryDirectory { folder in
            let database = folder.url.appendingPathComponent("live.sqlite3").path
            _ = try BackupFixtures.seed(database)
            let small = folder.url.appendingPathComponent("small")
            try SmallDisk.mount(at: small, size: "2m")
            defer { SmallDisk.unmount(small) }
            let tiny = folder.url.appendingPathComponent("tiny.sqlite3").path
            _ = try BackupFixtures.seed(tiny, entries: 10)
            #expect(try BackupFixtures.backup(tiny, to: small.appendingPathComponent("old.sqlite3").path).status == 0)
            let before = try BackupFixtures.visibleFiles(in: small)

            let output = small.appendingPathComponent("new.sqlite3").path
            let result = try BackupFixtures.backup(database, to: output)
            #expect(result.status == 1)
            #expect(result.stderr == "error: the disk is full: cannot write \(output)\n", "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
            #expect(try BackupFixtures.visibleFiles(in: small) == before, "the old backup changed")
            #expect(try BackupFixtures.temporaries(in: small).isEmpty, "a temporary file was left on the full disk")
        }
    }
}

/// A small tmpfs, mounted as root, to fill up.
enum SmallDisk {
    /// Whether this process can mount one: root, with mount(8), and a trial mount works.
    static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let trial = FileManager.default.temporaryDirectory.appendingPathComponent("diary-tmpfs-trial-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: trial) }
        guard (try? mount(at: trial, size: "1m")) != nil else { return false }
        unmount(trial)
        return true
    }()

    static func mount(at folder: URL, size: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let result = try run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", folder.path])
        guard result.status == 0 else { throw FixtureError("mount failed: \(result.stderr)") }
    }

    static func unmount(_ folder: URL) {
        _ = try? run(URL(fileURLWithPath: "/bin/umount"), [folder.path])
    }
}
