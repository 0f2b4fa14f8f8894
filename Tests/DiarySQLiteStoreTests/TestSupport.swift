import DiaryAPI
import APITokens
import DiaryStore
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import Testing

/// Runs `body` with a store on a new database file that is deleted afterwards.
func withStore(clock: TestClock = TestClock(), _ body: (SQLiteDiaryStore, TestClock) throws -> Void) throws {
    try withTemporaryDirectory { directory in
        let store = try SQLiteDiaryStore(path: directory.databasePath, clock: { clock.now })
        try body(store, clock)
        #expect(try store.integrityCheck() == "ok")
        try store.close()
    }
}
