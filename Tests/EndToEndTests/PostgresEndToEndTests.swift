import DiaryAPI
import DiaryPostgresStore
import Foundation
import Testing

/// The server `DIARY_TEST_POSTGRES_URL` names (`scripts/postgres` starts one), or nil: then
/// these tests are skipped (PostgresReplicaTests too).
let postgresServer: PostgresURL? = ProcessInfo.processInfo.environment["DIARY_TEST_POSTGRES_URL"].flatMap { try? PostgresURL($0) }

/// `diary-server --database postgres://…`: serve, user add and user token on PostgreSQL.
@Suite(.serialized) struct PostgresEndToEndTests {
    @Test(.enabled(if: postgresServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
    func twoServersShareOnePostgresDatabase() throws {
        let server = try #require(postgresServer)
        let name = "diary_e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDiaryStore.createDatabase(named: name, on: server)
        defer { try? PostgresDiaryStore.dropDatabase(named: name, on: server) }
        let url = server.withDatabase(name).description
        do {
            let first = try ServerProcess(database: url), second = try ServerProcess(database: url)
            defer {
                first.stop()
                second.stop()
            }
            let token = try first.addUser("alice")
            let added = try first.diary(["add", "京都", "--body", "紅葉を見た"], token: token)
            #expect(added.status == 0, "\(added.stderr)")
            for reader in [first, second] {
                let page = try JSONDecoder.diary.decode(EntryPage.self, from: Data(try reader.raw("GET", "/api/entries?q=%E7%B4%85%E8%91%89").body))
                #expect(page.total == 1 && page.entries.first?.title == "京都", "read through \(reader.url)")
            }
            // Written through the second server, seen at once through the first, whose cache
            // kept the page before (asked twice, so that it is kept).
            _ = try first.raw("GET", "/api/entries?per_page=1")
            _ = try first.raw("GET", "/api/entries?per_page=1")
            let created = try second.raw(
                "POST", "/api/entries", headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                body: #"{"title":"second","body":""}"#
            )
            #expect(created.status == 201)
            let page = try JSONDecoder.diary.decode(EntryPage.self, from: Data(try first.raw("GET", "/api/entries?per_page=1").body))
            #expect(page.total == 2 && page.entries.first?.title == "second")

            // A new token: the old one stops working on both servers.
            let replaced = try run(Binaries.server, ["user", "token", "alice", "--database", url])
            #expect(replaced.status == 0, "\(replaced.stderr)")
            let newToken = replaced.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            for server in [first, second] {
                #expect(try server.diary(["add", "old", "--body", ""], token: token).status != 0)
                #expect(try server.diary(["add", "new", "--body", ""], token: newToken).status == 0)
            }
        }
    }

    /// A server that cannot open its database says which, without the URL's password (no
    /// server needed: nothing listens on port 1).
    @Test func aDatabaseThatCannotBeOpenedIsNamedWithoutItsPassword() throws {
        let url = "postgres://diary:hunter2-secret@127.0.0.1:1/nowhere"
        for arguments in [["serve", "--port", "0", "--database", url], ["user", "add", "alice", "--database", url]] {
            let result = try run(Binaries.server, arguments)
            #expect(result.status != 0)
            #expect(result.stderr.contains("127.0.0.1:1/nowhere"), "\(result.stderr)")
            #expect(!result.stderr.contains("hunter2") && !result.stdout.contains("hunter2"), "\(result.stderr)")
        }
    }
}
