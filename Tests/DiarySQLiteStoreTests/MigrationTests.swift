import DiaryAPI
import DiaryStore
import StoreTestSupport
@testable import DiarySQLiteStore
import Foundation
import GRDB
import Testing

/// A database written by an earlier schema opens, and keeps everything it held.
@Suite struct MigrationTests {
    /// A file as version 1 (before visibility) left it, then opened by today's store: every
    /// entry and diary is public, the counts and times others see are the ones it had, and
    /// search and new writes work on it.
    @Test func aVersion1DatabaseBecomesPublicAndKeepsItsCountsAndTimes() throws {
        try withTemporaryDirectory { directory in
            do {
                try SQLiteDiaryStore.createParentDirectory(of: directory.databasePath)
                let queue = try DatabaseQueue(path: directory.databasePath)
                try SQLiteDiaryStore.migrator.migrate(queue, upTo: "v1")
                try queue.write { db in
                    let hash = String(repeating: "a", count: 64)
                    try db.execute(sql: "INSERT INTO users (name, token_hash, created) VALUES ('alice', ?, '2026-01-01T00:00:00Z')", arguments: [hash])
                    try db.execute(sql: """
                        INSERT INTO diaries (user_id, title, created, updated) VALUES (1, 'Old', '2026-01-01T00:00:00Z', '2026-03-01T00:00:00Z')
                        """)
                    for (n, created) in ["2026-01-02T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"].enumerated() {
                        try db.execute(
                            sql: "INSERT INTO entries (diary_id, title, body, created, updated) VALUES (1, ?, '京都で紅葉を見た', ?, ?)",
                            arguments: ["entry \(n)", created, created]
                        )
                    }
                    try db.execute(sql: "INSERT INTO entry_tags (entry_id, tag) VALUES (1, 'travel')")
                }
                try queue.close()
            }
            let clock = TestClock()
            let store = try SQLiteDiaryStore(path: directory.databasePath, clock: { clock.now })
            let diary = try #require(try store.diary(id: 1))
            #expect(diary.entryCount == 3 && diary.defaultVisibility == .public)
            #expect(diary.updated == RFC3339.date(from: "2026-03-01T00:00:00Z"))
            #expect(try store.lastModified(diaryID: nil) == RFC3339.date(from: "2026-03-01T00:00:00Z"))
            let page = try store.entries(diaryID: nil, page: PageRequest())
            #expect(page.entries.map(\.title) == ["entry 2", "entry 1", "entry 0"] && page.total == 3)
            #expect(page.entries.allSatisfy { $0.visibility == .public })
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "紅葉"))).page.total == 3)
            #expect(try store.tags() == [TagCount(name: "travel", count: 1)])

            // Written after the migration: a private entry counts for its owner only.
            _ = try store.createEntry(userID: 1, diaryID: 1, title: "new", body: "紅葉", visibility: .private)
            #expect(try store.diary(id: 1)?.entryCount == 3)
            #expect(try store.diary(id: 1, viewerID: 1)?.entryCount == 4)
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "紅葉"))).page.total == 3)
            #expect(try store.entries(EntryQuery(filter: EntryFilter(query: "紅葉"), viewerID: 1)).page.total == 4)
            // The tag's row carries its entry's date, visibility and diary (v9), and follows it, and
            // all the entry's tags (v11).
            _ = try store.updateEntry(id: 1, userID: 1, changes: EntryChanges(visibility: .private, created: RFC3339.date(from: "2026-04-01T00:00:00Z")))
            // Its count (v10) moves from the public ones to the owner's.
            #expect(try store.tags().isEmpty && store.tags(viewerID: 1) == [TagCount(name: "travel", count: 1)])
            #expect(try store.integrityCheck() == "ok")
            try store.close()
            let queue = try DatabaseQueue(path: directory.databasePath, configuration: SQLiteDiaryStore.configuration(readonly: true))
            let copies = try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT t.created, t.visibility, t.diary_id, t.all_tags FROM entry_tags t")
            }
            #expect(copies == [["created": "2026-04-01T00:00:00Z", "visibility": "private", "diary_id": 1, "all_tags": ",travel,"]])
        }
    }

    /// A version 3 file with entries gets its change feed: each entry numbered by id in its
    /// owner's sequence, the public ones in the public sequence, and later writes after them.
    @Test func aVersion3DatabaseGetsItsChangeFeed() throws {
        try withTemporaryDirectory { directory in
            do {
                try SQLiteDiaryStore.createParentDirectory(of: directory.databasePath)
                // Version 3's index needs the store's tokenizer registered.
                let queue = try DatabaseQueue(path: directory.databasePath, configuration: SQLiteDiaryStore.configuration(readonly: false))
                try SQLiteDiaryStore.migrator.migrate(queue, upTo: "v3")
                try queue.write { db in
                    for name in ["alice", "bob"] {
                        let hash = String(repeating: name == "alice" ? "a" : "b", count: 64)
                        try db.execute(sql: "INSERT INTO users (name, token_hash, created) VALUES (?, ?, '2026-01-01T00:00:00Z')", arguments: [name, hash])
                    }
                    for user in [1, 2] {
                        try db.execute(sql: """
                            INSERT INTO diaries (user_id, title, created, updated) VALUES (?, 'Old', '2026-01-01T00:00:00Z', '2026-03-01T00:00:00Z')
                            """, arguments: [user])
                    }
                    for (diary, visibility) in [(1, "public"), (1, "private"), (2, "public"), (1, "unlisted")] {
                        try db.execute(
                            sql: "INSERT INTO entries (diary_id, title, body, created, updated, visibility) VALUES (?, 'e', '', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z', ?)",
                            arguments: [diary, visibility]
                        )
                    }
                }
                try queue.close()
            }
            let store = try SQLiteDiaryStore(path: directory.databasePath)
            let anyone = try store.changes(since: nil, viewerID: nil, limit: 10)
            #expect(anyone.changes.map(\.entryID) == [1, 3] && anyone.next == "2")
            let alice = try store.changes(since: nil, viewerID: 1, limit: 10)
            #expect(alice.changes.map(\.entryID) == [1, 2, 4, 3] && alice.next == "2.3")
            let later = try store.createEntry(userID: 2, diaryID: 2, title: "new", body: "")
            #expect(try store.changes(since: anyone.nextCursor, viewerID: nil, limit: 10).changes == [.entry(later)])
            #expect(try store.integrityCheck() == "ok")
            try store.close()
        }
    }
}
