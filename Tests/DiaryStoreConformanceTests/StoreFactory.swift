import DiarySQLiteStore
import DiaryStore
import Foundation
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

    static let all: [StoreFactory] = [.sqlite]

    /// A real SQLite file in a temporary folder.
    static let sqlite = StoreFactory(name: "SQLite") { clock in
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("DiaryStoreConformance-\(UUID().uuidString)")
        let store = try SQLiteDiaryStore(path: url.appendingPathComponent("diary.sqlite3").path, clock: { clock.now })
        return StoreUnderTest(store: store) {
            #expect(try store.integrityCheck() == "ok")
            try store.close()
            try? FileManager.default.removeItem(at: url)
        }
    }
}

/// A store made for one test, and what ends it.
struct StoreUnderTest {
    let store: any DiaryStore
    let finish: () throws -> Void
}

/// Runs `body` with a fresh store of `factory`'s engine, then checks and removes it.
func withStore(_ factory: StoreFactory, clock: TestClock = TestClock(), _ body: (any DiaryStore, TestClock) throws -> Void) throws {
    let made = try factory.make(clock)
    do {
        try body(made.store, clock)
    } catch {
        try? made.finish()
        throw error
    }
    try made.finish()
}
