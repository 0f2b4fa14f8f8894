@testable import DiaryPostgresStore
import Foundation
import Testing

/// Reading a database URL, and where its password comes from: no server needed.
@Suite struct PostgresURLTests {
    @Test func readsEveryPart() throws {
        let url = try PostgresURL("postgres://diary:pw@db.example:6543/diaries?sslmode=require&application_name=x")
        #expect(url.user == "diary" && url.host == "db.example" && url.port == 6543 && url.database == "diaries")
        #expect(url.tlsMode == .require)
        #expect(url.password(environment: [:]) == "pw")

        let long = try PostgresURL("postgresql://me@127.0.0.1/db")
        #expect(long.port == 5432 && long.tlsMode == .disable && long.database == "db")

        let v6 = try PostgresURL("postgres://me@[::1]:5433/db")
        #expect(v6.host == "::1" && v6.port == 5433)
        #expect(v6.description == "postgres://me@[::1]:5433/db")

        let encoded = try PostgresURL("postgres://m%40e:p%2Fw%3A@host/my%20db")
        #expect(encoded.user == "m@e" && encoded.database == "my db" && encoded.password(environment: [:]) == "p/w:")
        #expect(try PostgresURL("postgres://me@host").database == "me", "no path: the user's name, as libpq")
    }

    @Test func refusesWhatIsNotAPostgresURL() {
        for text in ["mysql://me@host/db", "host/db", "postgres://me@host:99999/db", "postgres://me@host:x/db", "postgres://me@[::1/db"] {
            #expect(throws: PostgresURL.Invalid.self, "\(text)") { try PostgresURL(text) }
        }
        #expect(throws: PostgresURL.Invalid.self) { try PostgresURL("postgres://me@host/db?sslmode=sometimes") }
    }

    @Test func thePasswordIsNeverShown() throws {
        let url = try PostgresURL("postgres://diary:hunter2-secret@host:5432/db")
        #expect(!url.description.contains("hunter2"))
        #expect(!"\(url)".contains("hunter2"))
        #expect(url.withDatabase("other").description == "postgres://diary@host:5432/other")
        do {
            _ = try PostgresURL("postgres://diary:hunter2-secret@host:70000/db")
            Issue.record("a port of 70000 was taken")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test func thePasswordComesFromTheURLThenPGPASSWORDThenThePasswordFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("pgpass").path
        try """
            # comment
            otherhost:5432:db:diary:wrong
            host:5432:db:diary:from\\:file\\\\
            *:*:*:*:fallback
            """.write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)

        let url = try PostgresURL("postgres://diary@host:5432/db")
        #expect(url.password(environment: ["PGPASSFILE": file]) == "from:file\\")
        #expect(url.password(environment: ["PGPASSFILE": file, "PGPASSWORD": "from-env"]) == "from-env")
        #expect(try PostgresURL("postgres://diary:from-url@host:5432/db").password(environment: ["PGPASSWORD": "from-env"]) == "from-url")
        #expect(try PostgresURL("postgres://diary@host:5433/db").password(environment: ["PGPASSFILE": file]) == "fallback")
        #expect(url.password(environment: ["PGPASSFILE": folder.appendingPathComponent("missing").path]) == nil)
        #expect(url.password(environment: ["HOME": folder.path]) == nil)
        // A file others may read is ignored, as libpq ignores it.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(url.password(environment: ["PGPASSFILE": file]) == nil)
    }

    @Test func localhostLinesMatchTheLoopbackAddress() {
        let text = "localhost:*:*:diary:local\n"
        #expect(PostgresURL.passwordFileLookup(text, host: "127.0.0.1", port: 5432, database: "db", user: "diary") == "local")
        #expect(PostgresURL.passwordFileLookup(text, host: "10.0.0.1", port: 5432, database: "db", user: "diary") == nil)
        #expect(PostgresURL.passwordFileLookup(text, host: "127.0.0.1", port: 5432, database: "db", user: "other") == nil)
    }

    @Test func migrationFilesSplitIntoStatements() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (t text DEFAULT 'x;y');
            CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RETURN NULL; -- inside the body
            END;
            $$;
            CREATE FUNCTION g() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$;
            INSERT INTO "odd;name" VALUES (1)
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 4, "\(statements)")
        #expect(statements.first == "CREATE TABLE a (t text DEFAULT 'x;y')")
        #expect(statements[1].hasSuffix("$$") && statements[1].contains("RETURN NULL;"))
        #expect(statements[2].hasSuffix("$body$ SELECT 1; $body$"))
        #expect(statements[3] == "INSERT INTO \"odd;name\" VALUES (1)")
        #expect(SQLScript.statements(String(decoding: PackageResources.postgres_v1_sql, as: UTF8.self)).count > 20)
    }
}
