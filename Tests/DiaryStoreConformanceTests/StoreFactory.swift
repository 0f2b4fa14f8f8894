import DiaryPostgresStore
import DiarySQLiteStore
import DiaryStore
import Foundation
import Synchronization
import StoreTestSupport
import Testing

/// A way to make a fresh, empty store of one engine for one test. Every test of this suite
/// runs once per factory in `all`: a second engine joins by adding its factory there (one
/// whose server is not configured on this machine may leave itself out of the list).
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    /// A new store on an empty database whose times come from `clock`, and what to check and
    /// clean up when the test is done.
    let make: @Sendable (_ clock: TestClock) throws -> StoreUnderTest

    var testDescription: String { name }

    /// SQLite always; PostgreSQL when `DIARY_TEST_POSTGRES_URL` names a server
    /// (`scripts/postgres` starts a throwaway one and prints it).
    static let all: [StoreFactory] = [.sqlite] + (postgres.map { [$0] } ?? [])

    /// A real SQLite file in a temporary folder.
    static let sqlite = StoreFactory(name: "SQLite") { clock in
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("DiaryStoreConformance-\(UUID().uuidString)")
        let path = url.appendingPathComponent("diary.sqlite3").path
        let store = try SQLiteDiaryStore(path: path, clock: { clock.now })
        let others = Mutex<[SQLiteDiaryStore]>([])
        return StoreUnderTest(
            store: store,
            openAnother: {
                let other = try SQLiteDiaryStore(path: path, clock: { clock.now })
                others.withLock { $0.append(other) }
                return other
            },
            finish: {
                defer { try? FileManager.default.removeItem(at: url) }
                for other in others.withLock({ $0 }) { try other.close() }
                #expect(try store.integrityCheck() == "ok")
                try store.close()
            },
            keepTombstones: { count in try store.setTombstonesKept(count) }
        )
    }
}

extension StoreFactory {
    /// A new database on the server `DIARY_TEST_POSTGRES_URL` names (its path is the database
    /// to connect to while creating and dropping: `postgres`), dropped when the test ends.
    static let postgres: StoreFactory? = {
        guard let text = ProcessInfo.processInfo.environment["DIARY_TEST_POSTGRES_URL"], !text.isEmpty else { return nil }
        guard let server = try? PostgresURL(text) else {
            fatalError("DIARY_TEST_POSTGRES_URL is not a postgres:// URL")
        }
        return StoreFactory(name: "PostgreSQL") { clock in
            let name = "diary_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try PostgresDiaryStore.createDatabase(named: name, on: server)
            let url = server.withDatabase(name)
            let store: PostgresDiaryStore
            do {
                store = try PostgresDiaryStore(url: url, poolSize: 4, clock: { clock.now })
            } catch {
                try? PostgresDiaryStore.dropDatabase(named: name, on: server)
                throw error
            }
            let others = Mutex<[PostgresDiaryStore]>([])
            return StoreUnderTest(
                store: store,
                openAnother: {
                    let other = try PostgresDiaryStore(url: url, poolSize: 4, clock: { clock.now })
                    others.withLock { $0.append(other) }
                    return other
                },
                finish: { () throws in
                    defer { try? PostgresDiaryStore.dropDatabase(named: name, on: server) }
                    for other in others.withLock({ $0 }) { other.close() }
                    #expect(try store.consistencyCheck() == "ok")
                    #expect(try store.appliedMigrations() == PostgresDiaryStore.schemaVersions)
                    store.close()
                },
                keepTombstones: { count in try store.setTombstonesKept(count) }
            )
        }
    }()
}

/// A store made for one test, and what only its engine knows how to do.
struct StoreUnderTest {
    let store: any DiaryStore
    /// A second store on the same data with connections of its own, on the same clock, as a
    /// second server process would open it: its writes must show in `store.dataVersion()`.
    let openAnother: () throws -> any DiaryStore
    /// The engine's own checks after a test body that returned, then closing every store opened.
    let finish: () throws -> Void
    /// Sets how many tombstones the change feed keeps per audience (each engine's own call).
    let keepTombstones: (Int) throws -> Void
}

/// Runs `body` with a fresh store of `factory`'s engine, then checks and removes it.
func withStore(_ factory: StoreFactory, clock: TestClock = TestClock(), _ body: (any DiaryStore, TestClock) throws -> Void) throws {
    try withStoreUnderTest(factory, clock: clock) { subject in try body(subject.store, clock) }
}

/// `withStore` for a test that needs more than the store: a second one on the same data.
func withStoreUnderTest(_ factory: StoreFactory, clock: TestClock = TestClock(), _ body: (StoreUnderTest) throws -> Void) throws {
    let made = try factory.make(clock)
    do {
        try body(made)
    } catch {
        try? made.finish()
        throw error
    }
    try made.finish()
}
