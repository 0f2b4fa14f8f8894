import DiaryAPI
import APITokens
import DiaryStore
@testable import DiarySQLiteStore
import Foundation
import Testing

/// A clock the test moves by hand. Several entries written without moving it share a timestamp.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    init(_ text: String = "2026-11-22T04:30:00Z") {
        current = RFC3339.date(from: text)!
    }

    var now: Date { lock.withLock { current } }

    func advance(seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// A directory of its own under the system's temporary directory, removed when the test ends.
struct TemporaryDirectory: ~Copyable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("DiaryStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The database path inside, in a subdirectory the store has to create.
    var databasePath: String { url.appendingPathComponent("db/diary.sqlite3").path }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a store on a new database file that is deleted afterwards.
func withStore(clock: TestClock = TestClock(), _ body: (SQLiteDiaryStore, TestClock) throws -> Void) throws {
    let directory = try TemporaryDirectory()
    let store = try SQLiteDiaryStore(path: directory.databasePath, clock: { clock.now })
    try body(store, clock)
    #expect(try store.integrityCheck() == "ok")
    try store.close()
}

func newTokenHash() -> TokenHash {
    TokenHash(token: APIToken.generate())
}

/// Expects `body` to throw a `StoreError` of `kind` (about `subject` when given), and returns it.
@discardableResult
func expectStoreError<T>(
    _ kind: StoreError.Kind,
    _ subject: StoreError.Subject? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> StoreError? {
    do {
        let value = try body()
        Issue.record("expected \(kind) about \(subject.map { "\($0)" } ?? "anything"), got \(value)", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        if let subject {
            #expect(error.subject == subject, "\(error)", sourceLocation: sourceLocation)
        }
        return error
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

let newestFirstPage = PageRequest(page: 1, perPage: PageRequest.maxPerPage)
