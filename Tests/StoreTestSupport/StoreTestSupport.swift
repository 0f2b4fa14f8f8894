import APITokens
import DiaryAPI
import DiaryStore
import Foundation
import Testing

// What the store suites share: the conformance suite, run on every store, and each engine's own.

/// A clock the test moves by hand. Several entries written without moving it share a timestamp.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ text: String = "2026-11-22T04:30:00Z") {
        current = RFC3339.date(from: text)!
    }

    public var now: Date { lock.withLock { current } }

    public func advance(seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// A directory of its own under the system's temporary directory. Made only by
/// `withTemporaryDirectory`, which removes it when its body returns.
///
/// It used to be a `~Copyable` value that removed itself in `deinit`. Swift may end such a
/// value's life after its last use, not at the end of its scope: in a test whose last use was
/// `SQLiteDiaryStore(path: directory.databasePath)`, the folder could be deleted while the store
/// still wrote to it, and the next write failed with SQLite's disk I/O error (1802), once in a
/// while, when the optimiser or the schedule put the deinit early. A scope says when it ends.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    /// The database path inside, in a subdirectory the store has to create.
    public var databasePath: String { url.appendingPathComponent("db/diary.sqlite3").path }
}

/// Runs `body` with a new temporary directory, and removes the directory when `body` returns
/// or throws: whatever `body` opened in it is used inside the scope.
public func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("DiaryStoreTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(TemporaryDirectory(url: url))
}

public func newTokenHash() -> TokenHash {
    TokenHash(token: APIToken.generate())
}

/// Every entry of a small test in one page.
public let newestFirstPage = PageRequest(page: 1, perPage: PageRequest.maxPerPage)

/// Expects `body` to throw a `StoreError` of `kind` (about `subject` when given), and returns it.
@discardableResult
public func expectStoreError<T>(
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
