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

/// A directory of its own under the system's temporary directory, removed when the test ends.
public struct TemporaryDirectory: ~Copyable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("DiaryStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The database path inside, in a subdirectory the store has to create.
    public var databasePath: String { url.appendingPathComponent("db/diary.sqlite3").path }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
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
