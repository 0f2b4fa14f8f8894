import DiaryAPI
import DiaryStore
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct DatabaseFileTests {
    @Test func walFullSyncForeignKeysAndBusyTimeoutAreSet() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteDiaryStore(path: directory.databasePath)
            #expect(try store.pragma("journal_mode", on: .writer) == "wal")
            #expect(try store.pragma("journal_mode", on: .reader) == "wal")
            #expect(try store.pragma("synchronous", on: .writer) == "2")  // FULL
            #expect(try store.pragma("foreign_keys", on: .writer) == "1")
            #expect(try store.pragma("foreign_keys", on: .reader) == "1")
            #expect(try store.pragma("busy_timeout", on: .writer) == "5000")
            #expect(store.isReadOnly == false)
            try store.close()

            // The file itself says WAL: bytes 18 and 19 of the header are 2 (1 is a rollback journal).
            let header = try Data(contentsOf: URL(fileURLWithPath: directory.databasePath)).prefix(20)
            #expect(header.prefix(16) == Data("SQLite format 3\0".utf8))
            #expect(header[18] == 2 && header[19] == 2)
        }
    }

    @Test func dataSurvivesClosingAndReopening() throws {
        try withTemporaryDirectory { directory in
            let clock = TestClock()
            let hash = newTokenHash()
            let (alice, kept, deleted): (User, Entry, Entry)
            do {
                let store = try SQLiteDiaryStore(path: directory.databasePath, clock: { clock.now })
                alice = try store.createUser(name: "alice", tokenHash: hash)
                kept = try store.createEntry(userID: alice.id, diaryID: nil, title: "Kept", body: "Still here")
                deleted = try store.createEntry(userID: alice.id, diaryID: nil, title: "Gone", body: "")
                try store.deleteEntry(id: deleted.id, userID: alice.id)
                try store.close()
            }
            let store = try SQLiteDiaryStore(path: directory.databasePath, clock: { clock.now })
            #expect(try store.user(tokenHash: hash) == alice)
            #expect(try store.entry(id: kept.id) == kept)
            #expect(try store.diaries().map(\.entryCount) == [1])
            // Migrations ran once: reopening applied nothing twice, and ids are never reused.
            let next = try store.createEntry(userID: alice.id, diaryID: nil, title: "Next", body: "")
            #expect(next.id > deleted.id)
            #expect(try store.integrityCheck() == "ok")
            try store.close()
        }
    }

    @Test func aClosedStoreIsUnavailable() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteDiaryStore(path: directory.databasePath)
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            try store.close()
            expectStoreError(.unavailable, .entry(1)) { try store.entry(id: 1) }
            expectStoreError(.unavailable, .operation("new entry of user \(alice.id)")) {
                try store.createEntry(userID: alice.id, diaryID: nil, title: "After", body: "")
            }
        }
    }

    /// The database file cannot be written: the store still opens, answers reads, and every
    /// write is `.unavailable` without changing anything.
    ///
    /// `chmod 0444` does not stop root, and these tests may run as root: then the file is also
    /// made immutable (`chattr +i`), which stops root too.
    @Test func aReadOnlyFileServesReadsAndRefusesWrites() throws {
        try withTemporaryDirectory { directory in
            let path = directory.databasePath
            let hash = newTokenHash()
            let (alice, entry): (User, Entry)
            do {
                let store = try SQLiteDiaryStore(path: path)
                alice = try store.createUser(name: "alice", tokenHash: hash)
                entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "Before", body: "read-only")
                try store.close()
            }

            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            let immutable = geteuid() == 0
            if immutable {
                try #require(try run("/usr/bin/chattr", "+i", path) == 0, "as root, chattr +i is the only way to make the file read-only")
            }
            defer {
                if immutable { _ = try? run("/usr/bin/chattr", "-i", path) }
                try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            }
            #expect(FileManager.default.isWritableFile(atPath: path) == false || immutable)

            let store = try SQLiteDiaryStore(path: path)
            #expect(store.isReadOnly)
            #expect(try store.user(tokenHash: hash) == alice)
            #expect(try store.entry(id: entry.id) == entry)
            #expect(try store.entries(diaryID: nil, page: PageRequest()).entries == [entry])
            #expect(try store.diaries().count == 1)

            let writes: [() throws -> Void] = [
                { _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "After", body: "") },
                { _ = try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "After")) },
                { try store.deleteEntry(id: entry.id, userID: alice.id) },
                { _ = try store.createUser(name: "bob", tokenHash: newTokenHash()) },
                { _ = try store.replaceToken(userName: "alice", tokenHash: newTokenHash()) },
                { _ = try store.createDiary(ownerID: alice.id, title: "More") },
            ]
            for write in writes {
                let error = expectStoreError(.unavailable, nil, write)
                #expect(error?.detail.contains("read-only") == true, "\(String(describing: error))")
            }
            #expect(try store.entry(id: entry.id) == entry)
            #expect(try store.user(tokenHash: hash) == alice)
            try store.close()
        }
    }

    /// SQLITE_FULL, from a page limit on the writer connection instead of a full disk.
    @Test func aFullDatabaseIsUnavailableAndKeepsWhatItHad() throws {
        try withStore { store, _ in
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let pageCount = try store.pragma("page_count", on: .writer)
            let pages = try #require(pageCount.flatMap { Int($0) })
            try store.executeOnWriter("PRAGMA max_page_count = \(pages + 8)")
            let big = String(repeating: "x", count: 8192)
            var written = 0
            var failure: StoreError?
            while failure == nil, written < 100 {
                do throws(StoreError) {
                    _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "Big", body: big)
                    written += 1
                } catch {
                    failure = error
                }
            }
            let error = try #require(failure)
            #expect(error.kind == .unavailable)
            #expect(error.detail.contains("disk is full"), "\(error)")
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == written)
            #expect(try store.diaries().first?.entryCount == written)
        }
    }

    @Test func aDirectoryThatCannotBeCreatedIsUnavailable() throws {
        try withTemporaryDirectory { directory in
            let blocker = directory.url.appendingPathComponent("file")
            try Data().write(to: blocker)
            let path = blocker.appendingPathComponent("diary.sqlite3").path
            expectStoreError(.unavailable, .operation("database \(path)")) { try SQLiteDiaryStore(path: path) }
        }
    }

    @Test func aFileThatIsNotADatabaseIsUnavailable() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(
                atPath: (directory.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(String(repeating: "not a database ", count: 100).utf8).write(to: URL(fileURLWithPath: directory.databasePath))
            let error = expectStoreError(.unavailable, .operation("database \(directory.databasePath)")) {
                try SQLiteDiaryStore(path: directory.databasePath)
            }
            #expect(error?.detail.contains("not a database") == true, "\(String(describing: error))")
        }
    }
}

/// Runs a program and returns its exit status.
private func run(_ program: String, _ arguments: String...) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
