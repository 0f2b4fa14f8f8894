import Foundation
import StoreTestSupport
import Testing

/// `diary-server backup`, `restore`, `check` and `serve --backup-dir` on real SQLite files,
/// against a real server that keeps posting. (PostgreSQL's backups are pg_dump's:
/// `PostgresBackupTests`.)
@Suite(.serialized, .enabled(if: TestEngine.current == .sqlite, "backups, restores and checks are of SQLite files"))
struct BackupTests {
    /// The test that matters: writers post without a pause while three backups are taken. Each
    /// backup, restored and served, holds every entry acknowledged before it began, passes the
    /// check, and exports those entries byte for byte as the live server does; no post failed.
    @Test func eachBackupTakenWhileWritersPostHoldsEveryEntryAcknowledgedBeforeIt() throws {
        try withTemporaryDirectory { folder in
            let database = folder.url.appendingPathComponent("live.sqlite3").path
            let token = try BackupFixtures.seed(database)[0]
            let server = try ServerProcess(database: database)
            defer { server.stop() }
            let writers = ContinuousWriters(count: 3, server: server, token: token)
            // Stopped on every way out, a failed expectation's throw too.
            defer { _ = writers.stop() }
            for round in 1...3 {
                writers.waitForMorePosts(30)
                let began = ContinuousClock.now
                let acknowledged = writers.acknowledgedIDs(before: began)
                let output = folder.url.appendingPathComponent("backup-\(round).sqlite3").path
                let result = try BackupFixtures.backup(database, to: output)
                let ended = ContinuousClock.now
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.contains("entries"), "\(result.stdout)")
                writers.waitForMorePosts(10)
                print("backup \(round): \(ended - began), \(result.stdout.trimmingCharacters(in: .newlines)); longest post during it: \(writers.longestWait(sentFrom: began, to: ended))")
                try expectRestoredBackup(output, holds: acknowledged, asServedBy: server, token: token, in: folder.url.appendingPathComponent("restored-\(round)"))
            }
            let failures = writers.stop()
            #expect(failures.isEmpty, "posts refused or failed during backups: \(failures.prefix(5))")
            #expect(try BackupFixtures.temporaries(in: folder.url).isEmpty)
        }
    }

    /// Restores `backup` into a new folder, checks it, serves it, and compares its export of
    /// `acknowledged` with the live server's.
    private func expectRestoredBackup(_ backup: String, holds acknowledged: Set<Int64>, asServedBy live: ServerProcess, token: String, in folder: URL) throws {
        let database = folder.appendingPathComponent("diary.sqlite3").path
        let restored = try run(Binaries.server, ["restore", backup, "--database", database])
        #expect(restored.status == 0, "\(restored.stderr)")
        let check = try run(Binaries.server, ["check", "--database", database])
        #expect(check.status == 0 && check.stdout.contains("ok"), "\(check.stdout)\(check.stderr)")
        let copy = try ServerProcess(database: database)
        defer { copy.stop() }
        let restoredExport = try BackupFixtures.export(copy, token: token)
        let liveExport = try BackupFixtures.export(live, token: token)
        let missing = acknowledged.subtracting(restoredExport.keys)
        #expect(missing.isEmpty, "\(missing.count) acknowledged entries missing from \(backup), such as \(missing.sorted().prefix(5))")
        let differing = acknowledged.filter { restoredExport[$0] != liveExport[$0] }
        #expect(differing.isEmpty, "\(differing.count) entries exported differently from \(backup), such as \(differing.sorted().prefix(5))")
    }

    /// A backup process killed mid-copy leaves no file under its name, nor an older backup
    /// changed; the next backup to that name works and removes the killed one's temporary file.
    @Test func aBackupKilledMidwayLeavesNoFileUnderItsNameAndTheNextOneWorks() throws {
        try withTemporaryDirectory { folder in
            let (database, backups, before) = try BackupFixtures.seededWithOldBackup(in: folder.url, named: "old.sqlite3")
            let output = backups.appendingPathComponent("new.sqlite3").path
            let caught = try BackupFixtures.killMidBackup(["backup", "--database", database, "--output", output], writingIn: backups)
            #expect(caught, "the backup finished before it could be killed")
            #expect(!FileManager.default.fileExists(atPath: output))
            #expect(try BackupFixtures.visibleFiles(in: backups) == before, "an old backup changed")

            let next = try BackupFixtures.backup(database, to: output)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(try run(Binaries.server, ["check", "--database", output]).status == 0)
            #expect(try BackupFixtures.temporaries(in: backups).isEmpty, "the killed backup's temporary file was left")
        }
    }

    /// A server killed during one of its scheduled backups: older backups untouched, no new
    /// one; started again, it takes one at once, removing the killed one's temporary file, and
    /// on a short schedule keeps the newest --backup-keep.
    @Test func aServerKilledMidScheduledBackupLeavesOldBackupsAndTheNextServerBacksUp() throws {
        try withTemporaryDirectory { folder in
            let (database, backups, before) = try BackupFixtures.seededWithOldBackup(in: folder.url, named: "diary-20200101T000000.000Z.sqlite3")
            let schedule = ["--backup-dir", backups.path, "--backup-every", "1h", "--backup-keep", "3"]
            let caught = try BackupFixtures.killMidBackup(["serve", "--port", "0", "--database", database] + schedule, writingIn: backups)
            #expect(caught, "the server's backup finished before it could be killed")
            #expect(try BackupFixtures.visibleFiles(in: backups) == before, "a backup appeared or an old one changed")

            // Again, every 0.2 s, keeping 2: the newest two are there once it stops.
            let server = try ServerProcess(database: database, extraArguments: ["--backup-dir", backups.path, "--backup-every", "0.2s", "--backup-keep", "2"])
            let deadline = ContinuousClock.now + .seconds(60)
            var seen = Set<String>()
            while seen.count < 4 && ContinuousClock.now < deadline {
                seen.formUnion(try BackupFixtures.visibleFiles(in: backups).keys.filter { $0 != "diary-20200101T000000.000Z.sqlite3" })
            }
            #expect(server.stop() == 0)
            #expect(seen.count >= 4, "backups seen: \(seen.sorted())")
            let kept = try BackupFixtures.visibleFiles(in: backups).keys.sorted()
            #expect(kept.count == 2 && kept.allSatisfy { $0 >= seen.sorted().dropLast().last! }, "kept \(kept), saw \(seen.sorted())")
            #expect(try BackupFixtures.temporaries(in: backups).isEmpty, "the killed server's temporary file was left")
            for name in kept {
                #expect(try run(Binaries.server, ["check", "--database", backups.appendingPathComponent(name).path]).status == 0, "\(name)")
            }
        }
    }

    /// Scheduled backups that all fail (the folder is a file): each failure is one line on
    /// stderr, the server keeps trying and keeps serving writes, and stops cleanly.
    @Test func aFailingScheduledBackupIsLoggedAndTheServerKeepsServing() throws {
        try withTemporaryDirectory { folder in
            let database = folder.url.appendingPathComponent("live.sqlite3").path
            let token = try BackupFixtures.seed(database, entries: 10)[0]
            let notAFolder = folder.url.appendingPathComponent("not-a-folder")
            try Data("a file where the backups' folder should be".utf8).write(to: notAFolder)
            let output = folder.url.appendingPathComponent("stdout.log"), log = folder.url.appendingPathComponent("stderr.log")
            let server = try BackupFixtures.startServer(
                ["--database", database, "--backup-dir", notAFolder.path, "--backup-every", "0.1s"], output: output, errors: log)
            defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
            let failures = { (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").filter { $0.contains("backup failed") } ?? [] }
            let deadline = ContinuousClock.now + .seconds(30)
            while failures().count < 3 && ContinuousClock.now < deadline {}
            #expect(failures().count >= 3, "stderr: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            #expect(failures().allSatisfy { $0.hasPrefix("diary-server: backup failed: ") && $0.contains(notAFolder.path) }, "\(failures())")
            let connection = try RawConnection(port: server.port)
            let body = #"{"title":"still writing","body":""}"#
            try connection.send("""
                POST /api/entries HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\
                Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)
                """)
            let posted = try connection.readResponse(head: false)
            #expect(posted.status == 201, "\(posted.text)")
            kill(server.process.processIdentifier, SIGTERM)
            server.process.waitUntilExit()
            #expect(server.process.terminationStatus == 0)
        }
    }

    /// `--backup-dir` is for SQLite, and its schedule and count are checked before the server starts.
    @Test func scheduledBackupOptionsAreCheckedBeforeTheServerStarts() throws {
        let refused: [([String], String)] = [
            (["--database", "postgres://diary@127.0.0.1:1/diary", "--backup-dir", "/tmp/b"], "pg_dump"),
            (["--backup-dir", "/tmp/b", "--backup-every", "soon"], "--backup-every"),
            (["--backup-dir", "/tmp/b", "--backup-every", "-1h"], "--backup-every"),
            (["--backup-dir", "/tmp/b", "--backup-keep", "0"], "--backup-keep"),
        ]
        for (arguments, message) in refused {
            let result = try run(Binaries.server, ["serve", "--port", "0"] + arguments)
            #expect(result.status != 0 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
