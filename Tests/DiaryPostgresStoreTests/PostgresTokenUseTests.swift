import APITokens
import DiaryAPI
import DiaryPostgresStore
import DiaryStore
import Foundation
import StoreTestSupport
import Testing

/// On PostgreSQL a named token's minute of use is written without moving `data_version`: no
/// kept answer shows it, so a token in use must not empty every server's response cache.
@Suite(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
struct PostgresTokenUseTests {
    @Test func recordingAUseLeavesTheDataVersionAlone() throws {
        try withDatabase { url in
            let clock = TestClock("2026-11-22T04:30:20Z")
            let store = try PostgresDiaryStore(url: url, poolSize: 2, clock: { clock.now })
            defer { store.close() }
            let token = APIToken.generate()
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            _ = try store.createToken(userID: alice.id, name: "app", scope: .read, tokenHash: TokenHash(token: token))
            let version = try store.dataVersion()
            for minutes in 0..<3 {
                _ = try store.tokenHolder(tokenHash: TokenHash(token: token), at: clock.now.addingTimeInterval(Double(minutes) * 60))
            }
            #expect(try store.tokens(userID: alice.id).first?.lastUsed == RFC3339.date(from: "2026-11-22T04:32:00Z"))
            #expect(try store.dataVersion() == version)
        }
    }
}
