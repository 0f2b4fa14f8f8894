import DiaryPostgresStore
import Foundation
import StoreTestSupport
import Testing

/// PostgreSQL's backups are `pg_dump`'s: docs/operations.md's commands, run for real.
@Suite struct PostgresBackupTests {
    /// PostgreSQL 15's client programs, where Debian puts them.
    static let postgresBin = URL(fileURLWithPath: "/usr/lib/postgresql/15/bin")

    /// `pg_dump --format=custom` of a served database, `pg_restore` into a new one, a server on
    /// that: the export is the original's, byte for byte, and the tokens still work.
    @Test(.enabled(if: testPostgresServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
    func aDumpRestoredIntoANewDatabaseServesTheSameExport() throws {
        let original = try ScratchPostgresDatabase(), copy = try ScratchPostgresDatabase()
        // Both dropped only after the servers on them stopped, at the end of the test.
        try withExtendedLifetime((original, copy)) {
            try dumpRestoreAndCompare(original: original, copy: copy)
        }
    }

    private func dumpRestoreAndCompare(original: ScratchPostgresDatabase, copy: ScratchPostgresDatabase) throws {
        let server = try ServerProcess(database: original.url.description)
        defer { server.stop() }
        let token = try server.addUser("alice")
        for number in 1...20 {
            let added = try server.diary(["add", "entry \(number)", "--body", "día \(number), 日記", "--tag", "t\(number % 3)"], token: token)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let exported = try BackupFixtures.export(server, token: token)

        try withTemporaryDirectory { folder in
            let dump = folder.url.appendingPathComponent("diary.dump").path
            let dumped = try run(Self.postgresBin.appendingPathComponent("pg_dump"), ["--format=custom", "--file", dump, original.url.description])
            #expect(dumped.status == 0, "\(dumped.stderr)")
            let restored = try run(
                Self.postgresBin.appendingPathComponent("pg_restore"), ["--no-owner", "--exit-on-error", "--dbname", copy.url.description, dump])
            #expect(restored.status == 0, "\(restored.stderr)")
        }
        let restoredServer = try ServerProcess(database: copy.url.description)
        defer { restoredServer.stop() }
        #expect(try BackupFixtures.export(restoredServer, token: token) == exported)
        #expect(try restoredServer.diary(["add", "after the restore", "--body", ""], token: token).status == 0)
    }
}
