import APITokens
import DiaryAPI
@testable import DiaryPostgresStore
import DiaryStore
import Foundation
import StoreTestSupport
import Synchronization
import Testing

/// The server `DIARY_TEST_POSTGRES_URL` names (`scripts/postgres` starts one), or nil: then
/// these tests are skipped, and the conformance suite runs on SQLite alone.
let testServer: PostgresURL? = ProcessInfo.processInfo.environment["DIARY_TEST_POSTGRES_URL"].flatMap { try? PostgresURL($0) }

/// A fresh database on the test server for `body`, dropped after it.
func withDatabase(_ body: (PostgresURL) throws -> Void) throws {
    let server = try #require(testServer)
    let name = "diary_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    try PostgresDiaryStore.createDatabase(named: name, on: server)
    defer { try? PostgresDiaryStore.dropDatabase(named: name, on: server) }
    try body(server.withDatabase(name))
}

/// Brings the database `url` to schema `version` only, with one user, one diary and 2,000
/// public entries a minute apart, whose bodies are `body` (SQL over the entry's number `i`):
/// what an older server left, for a newer store to migrate.
func writeOldDatabase(_ url: PostgresURL, version: Int, body: String) throws {
    try PostgresDiaryStore.withAdminConnection(url, subject: "a version \(version) database") { session in
        try PostgresDiaryStore.migrate(session, through: version)
        try session.execute("INSERT INTO users (name, token_hash, created) VALUES ('alice', repeat('a', 64), now()::timestamptz(0))")
        try session.execute("""
            INSERT INTO diaries (user_id, title, created, updated, public_updated)
            VALUES (1, 'old', now()::timestamptz(0), now()::timestamptz(0), now()::timestamptz(0))
            """)
        try session.execute("""
            INSERT INTO entries (diary_id, title, body, created, updated)
            SELECT 1, 'entry ' || i, \(body), t, t
            FROM generate_series(1, 2000) AS i,
                LATERAL (SELECT timestamptz '2026-01-01 00:00:00Z' + i * interval '1 minute' AS t) AS times
            """)
        try session.execute("INSERT INTO diary_activity (diary_id, slot, entry_count, public_count) VALUES (1, 0, 2000, 2000)")
    }
}

/// What only the PostgreSQL engine has: migrations under concurrency, its pool, lost
/// connections, query plans, and errors that name the database but never its password.
@Suite(.enabled(if: testServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
struct PostgresStoreTests {
    /// Servers starting together on an empty database: each migration is applied once, and all
    /// of them open the same data.
    @Test func concurrentOpensMigrateOnce() throws {
        try withDatabase { url in
            let opened = Mutex<[Result<PostgresDiaryStore, StoreError>]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                let result = Result { () throws(StoreError) in try PostgresDiaryStore(url: url, poolSize: 2) }
                opened.withLock { $0.append(result) }
            }
            let stores = try opened.withLock { $0 }.map { try $0.get() }
            defer { stores.forEach { $0.close() } }
            #expect(stores.count == 4)
            for store in stores {
                #expect(try store.appliedMigrations() == PostgresDiaryStore.schemaVersions)
                #expect(try store.cursorSecret() == stores[0].cursorSecret())
            }
            // And again on a database already migrated: nothing to do, nothing changed.
            let later = try PostgresDiaryStore(url: url)
            defer { later.close() }
            #expect(try later.appliedMigrations() == PostgresDiaryStore.schemaVersions)
            #expect(try later.cursorSecret() == stores[0].cursorSecret())
        }
    }

    /// A database written by a server of schema version 2 (counts on the diary's row) opens
    /// with its counts and times as they were, and writes go on from them (version 3 keeps them
    /// in diary_activity).
    @Test func aVersion2DatabaseKeepsItsCountsWhenMigrated() throws {
        try withDatabase { url in
            let created = Date(timeIntervalSince1970: 1_767_225_600)
            try PostgresDiaryStore.withAdminConnection(url, subject: "a version 2 database") { session in
                try PostgresDiaryStore.migrate(session, through: 2)
                try session.execute("""
                    INSERT INTO users (name, token_hash, created) VALUES ('alice', repeat('a', 64), $1);
                    """, [created])
                try session.execute("""
                    INSERT INTO diaries (user_id, title, created, updated, public_updated, entry_count, public_count)
                    VALUES (1, 'old', $1, $1 + interval '2 minutes', $1 + interval '1 minute', 2, 1)
                    """, [created])
                try session.execute("""
                    INSERT INTO entries (diary_id, title, body, created, updated, visibility)
                    VALUES (1, 'public', '', $1 + interval '1 minute', $1 + interval '1 minute', 'public'),
                           (1, 'private', '', $1 + interval '2 minutes', $1 + interval '2 minutes', 'private')
                    """, [created])
            }
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            #expect(try store.appliedMigrations() == PostgresDiaryStore.schemaVersions)
            #expect(try store.consistencyCheck() == "ok")
            let owner = try #require(try store.diary(id: 1, viewerID: 1))
            #expect(owner.entryCount == 2 && owner.updated == created + 120)
            let reader = try #require(try store.diary(id: 1, viewerID: nil))
            #expect(reader.entryCount == 1 && reader.updated == created + 60)
            // Version 6 numbered the entries there: the public one for anyone, both for alice.
            #expect(try store.changes(since: nil, viewerID: nil, limit: 10).changes.map(\.entryID) == [1])
            #expect(try store.changes(since: nil, viewerID: 1, limit: 10).next == "1.2")
            let new = try store.createEntry(userID: 1, diaryID: 1, title: "new", body: "")
            #expect(try store.diary(id: 1, viewerID: nil)?.entryCount == 2)
            #expect(try store.changes(since: ChangeCursor(publicPosition: 1, ownPosition: nil), viewerID: nil, limit: 10).changes == [.entry(new)])
            #expect(try store.consistencyCheck() == "ok")
        }
    }

    /// A version 11 database's tags get their entries' dates, visibility and diary (v12), their
    /// counts (v13) and all their entries' tags (v14), and keep them when an entry or a tag
    /// changes by hand: pages of one tag or two, which walk the first tag's rows, are the pages
    /// read from the entries themselves, and the counts of `GET /api/tags` are counted from them.
    @Test func aVersion11DatabasesTagsCarryTheirEntriesColumns() throws {
        try withDatabase { url in
            try writeOldDatabase(url, version: 11, body: "md5(i::text)")
            try PostgresDiaryStore.withAdminConnection(url, subject: "tags") { session in
                try session.execute("UPDATE entries SET visibility = 'private' WHERE entry_id % 10 = 7")
                try session.execute("UPDATE entries SET created = created - interval '1 day' WHERE entry_id % 5 = 0")
                try session.execute("INSERT INTO entry_tags (entry_id, tag) SELECT entry_id, 'every' FROM entries")
                try session.execute("INSERT INTO entry_tags (entry_id, tag) SELECT entry_id, 'fifth' FROM entries WHERE entry_id % 5 = 0")
            }
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            func compare(_ label: String) throws {
                let lists: [([String], Int64?, Int)] = [
                    (["every"], nil, 1), (["every"], nil, 60), (["every"], 1, 3), (["every"], 1, 90), (["every", "fifth"], nil, 2),
                    // The last page, where entry 5 was until its tag `every` was taken off by hand.
                    (["fifth", "every"], 1, 20),
                ]
                for (tags, viewerID, page) in lists {
                    let query = EntryQuery(page: PageRequest(page: page, perPage: 20), filter: EntryFilter(tags: tags), viewerID: viewerID)
                    let listed = try store.entries(query).page.entries.map(\.id)
                    var read: [Int64] = []
                    try PostgresDiaryStore.withAdminConnection(url, subject: "entries") { session in
                        read = try session.query("""
                            SELECT entry_id FROM entries e WHERE (visibility = 'public' OR $1::bigint = 1) \
                            AND (SELECT count(*) FROM entry_tags t WHERE t.entry_id = e.entry_id AND t.tag = ANY ($3)) = cardinality($3) \
                            ORDER BY created DESC, entry_id DESC LIMIT 20 OFFSET $2
                            """, [viewerID, (page - 1) * 20, tags]).map { row in try row.decode(Int64.self) }
                    }
                    #expect(listed == read && !listed.isEmpty, "\(label): \(tags) \(viewerID ?? 0) page \(page)")
                }
                for viewerID in [nil, 1] as [Int64?] {
                    var counted: [TagCount] = []
                    try PostgresDiaryStore.withAdminConnection(url, subject: "tags") { session in
                        counted = try session.query("""
                            SELECT t.tag, count(*)::bigint FROM entry_tags t JOIN entries e ON e.entry_id = t.entry_id \
                            WHERE e.visibility = 'public' OR $1::bigint = 1 GROUP BY t.tag ORDER BY t.tag COLLATE "C"
                            """, [viewerID]).map { row in
                            let (name, count) = try row.decode((String, Int).self)
                            return TagCount(name: name, count: count)
                        }
                    }
                    #expect(try store.tags(viewerID: viewerID) == counted && counted.count > 1, "\(label): tags \(viewerID ?? 0)")
                }
            }
            try compare("migrated")
            // By hand, as a person with psql would.
            try PostgresDiaryStore.withAdminConnection(url, subject: "changes") { session in
                try session.execute("UPDATE entries SET created = created + interval '10 days' WHERE entry_id IN (3, 1500)")
                try session.execute("UPDATE entries SET visibility = 'public' WHERE entry_id = 1997")
                try session.execute("UPDATE entries SET visibility = 'private' WHERE entry_id = 1998")
                try session.execute("DELETE FROM entries WHERE entry_id IN (1996, 1997)")
                try session.execute("DELETE FROM entry_tags WHERE entry_id = 5 AND tag = 'every'")
            }
            try compare("changed by hand")
        }
    }

    /// A post from a user without a diary (the one-statement post finds none, and the store
    /// makes the first in a second transaction) lands in a new first diary and moves the data
    /// version; one into another's diary writes nothing and leaves the version alone.
    @Test func aPostWithoutADiaryMakesTheFirstAndMovesTheVersion() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let bob = try store.createUser(name: "bob", tokenHash: newTokenHash())
            try PostgresDiaryStore.withAdminConnection(url, subject: "a user without a diary") { session in
                try session.execute("DELETE FROM diaries WHERE user_id = $1", [alice.id])
            }
            var version = try store.dataVersion()
            let bobsDiary = try #require(try store.diaries().first)
            expectStoreError(.forbidden, .diary(bobsDiary.id)) {
                try store.createEntry(userID: alice.id, diaryID: bobsDiary.id, title: "no", body: "")
            }
            #expect(try store.dataVersion() == version)
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "first", body: "", tags: ["new"])
            #expect(try store.dataVersion() != version)
            version = try store.dataVersion()
            let diary = try #require(try store.diary(id: entry.diaryID, viewerID: nil))
            #expect(diary.owner == "alice" && diary.entryCount == 1 && entry.tags == ["new"])
            #expect(try store.entry(id: entry.id, viewerID: nil) == entry)
            _ = try store.createEntry(userID: bob.id, diaryID: nil, title: "fast", body: "")
            #expect(try store.dataVersion() != version)
            #expect(try store.consistencyCheck() == "ok")
        }
    }

    /// A visibility the store cannot read (written past the schema's CHECK) fails the call
    /// that reads it as `.unavailable`, about what the call was about, as SQLite's does.
    @Test func anUnreadableVisibilityIsUnavailableForTheCallThatReadsIt() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "t", body: "b")
            try PostgresDiaryStore.withAdminConnection(url, subject: "an edited visibility") { session in
                try session.execute("ALTER TABLE entries DROP CONSTRAINT entries_visibility_check")
                try session.execute("UPDATE entries SET visibility = 'secret' WHERE entry_id = $1", [entry.id])
            }
            let error = expectStoreError(.unavailable, .entry(entry.id)) { try store.entry(id: entry.id, viewerID: alice.id) }
            #expect(error?.detail == #"the database is damaged: entries.visibility holds "secret""#)
            expectStoreError(.unavailable, .entry(entry.id)) {
                try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "u"))
            }
            expectStoreError(.unavailable, .operation("entries")) { try store.entries(EntryQuery(viewerID: alice.id)) }
        }
    }

    /// More callers than connections wait their turn; none fails.
    @Test func aPoolOfOneServesConcurrentCallers() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, poolSize: 1)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let failures = Mutex<[StoreError]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                do throws(StoreError) {
                    _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "\(index)", body: "")
                    _ = try store.entries(EntryQuery(viewerID: alice.id))
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 8)
            #expect(try store.consistencyCheck() == "ok")
        }
    }

    /// Connections the server ended while they sat in the pool (a restart, an administrator)
    /// are replaced: the next calls work. (Here the pool has seen them close before the calls;
    /// a call that races the close is run again by `withSession`, which this cannot time.)
    @Test func connectionsEndedByTheServerAreReplaced() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, poolSize: 3)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            DispatchQueue.concurrentPerform(iterations: 3) { _ in _ = try? store.diaries() }
            let server = try #require(testServer)
            try PostgresDiaryStore.terminateConnections(to: url.database, on: server)
            let deadline = Date(timeIntervalSinceNow: 10)
            while try PostgresDiaryStore.connectionCount(to: url.database, on: server) > 0 {
                try #require(Date() < deadline, "the server ended its connections within 10 s")
                Thread.sleep(forTimeInterval: 0.01)
            }
            #expect(try store.diaries().count == 1)
            _ = try store.createEntry(userID: alice.id, diaryID: nil, title: "after", body: "")
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 1)
        }
    }

    /// A write that waits for another transaction's lock longer than the lock timeout fails
    /// as `.unavailable` and changes nothing, as SQLite's busy timeout; the worker is free again.
    /// (The same whether the statement that waits is prepared or not.)
    @Test func aWriteBlockedPastTheLockTimeoutIsUnavailable() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url, lockTimeout: 0.2)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let entry = try store.createEntry(userID: alice.id, diaryID: nil, title: "a", body: "")
            let version = try store.dataVersion()
            try PostgresDiaryStore.withAdminConnection(url, subject: "holding a lock") { session in
                try session.execute("BEGIN")
                try session.execute("SELECT 1 FROM entries WHERE entry_id = $1 FOR UPDATE", [entry.id])
                let error = expectStoreError(.unavailable, .entry(entry.id)) {
                    try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "b"))
                }
                #expect(error?.detail.contains("lock timeout") == true, "\(String(describing: error))")
                try session.execute("ROLLBACK")
            }
            #expect(try store.entry(id: entry.id) == entry)
            #expect(try store.dataVersion() == version)
            // The same through a prepared statement (the data version's UPDATE, the last of every
            // write), whose errors postgres-nio converts to another type: the same answer.
            try PostgresDiaryStore.withAdminConnection(url, subject: "holding the data version") { session in
                try session.execute("BEGIN")
                try session.execute("SELECT 1 FROM data_version FOR UPDATE")
                let error = expectStoreError(.unavailable, .operation("new entry of user \(alice.id)")) {
                    try store.createEntry(userID: alice.id, diaryID: nil, title: "c", body: "")
                }
                #expect(error?.detail.hasPrefix("another transaction held a lock longer than the lock timeout (PostgreSQL 55P03") == true,
                        "\(String(describing: error))")
                try session.execute("ROLLBACK")
            }
            #expect(try store.entries(diaryID: nil, page: newestFirstPage).total == 1)
            #expect(try store.dataVersion() == version)
            #expect(try store.updateEntry(id: entry.id, userID: alice.id, changes: EntryChanges(title: "b")).title == "b")
        }
    }

    /// On a database of some size, a search for a rare word goes through the chunk index
    /// (schema v9), and reads nothing for a word in no entry; one of 3 or more characters
    /// without an ASCII letter or digit goes through the trigram indexes, and a page of the newest public entries walks the partial index in
    /// order, without a sort.
    @Test func searchAndListsUseTheirIndexes() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            let alice = try store.createUser(name: "alice", tokenHash: newTokenHash())
            try PostgresDiaryStore.withAdminConnection(url, subject: "seeding", timeout: PostgresDiaryStore.maintenanceTimeout) { session in
                // Seeding is maintenance, not a request: no statement timeout (on a loaded CI
                // machine the 5,000 rows and their trigram and chunk indexes outlasted a request's).
                try session.execute("SET statement_timeout = 0")
                try session.execute("""
                    INSERT INTO entries (diary_id, title, body, created, updated)
                    SELECT 1, 'entry ' || i, md5(i::text) || ' about the weather' || CASE WHEN i % 1000 = 0 THEN ' in kyoto' ELSE '' END, t, t
                    FROM generate_series(1, 5000) AS i, LATERAL (SELECT timestamptz '2026-01-01 00:00:00Z' + i * interval '1 minute' AS t) AS times
                    """)
                // The store keeps the counts (schema version 2, in diary_activity since 3): rows
                // written by hand adjust them too.
                try session.execute("INSERT INTO diary_activity (diary_id, slot, entry_count, public_count) VALUES (1, 0, 5000, 5000)")
                // As autovacuum would: statistics, and the GIN indexes' pending lists merged (a
                // search walks a pending list whole, so the planner prices it high until then).
                try session.execute("VACUUM ANALYZE entries")
            }
            #expect(try store.entries(diaryID: nil, page: PageRequest(page: 1, perPage: 1)).total == 5000)
            let search = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "kyoto")))
            #expect(search.contains("entries_chunks") && !search.contains("trigrams"), "\(search)")
            let own = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "kyoto"), viewerID: alice.id))
            #expect(own.contains("entries_chunks") && !own.contains("trigrams"), "\(own)")
            // A word in no chunk is in no entry: the plan reads nothing (its scans under a
            // false one-time filter never start).
            let nowhere = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "zanzibar")))
            #expect(nowhere.contains("One-Time Filter: false"), "\(nowhere)")
            let japanese = try store.queryPlan(for: EntryQuery(filter: EntryFilter(query: "京都市")))
            #expect(japanese.contains("entries_title_trigrams") && japanese.contains("entries_body_trigrams"), "\(japanese)")
            let listing = try store.queryPlan(for: EntryQuery(page: PageRequest(page: 1, perPage: 20)))
            #expect(listing.contains("entries_public_newest_first") && !listing.contains("Sort Key"), "\(listing)")
            let seek = try store.queryPlan(for: EntryQuery(page: PageRequest(page: 1, perPage: 20), position: .after(created: Date(timeIntervalSince1970: 1_767_500_000), id: 2500)))
            #expect(seek.contains("entries_public_newest_first") && !seek.contains("Sort Key"), "\(seek)")
        }
    }

    /// A search ranks only within the count's bound, as on SQLite: past it the page comes
    /// newest first, so the entries holding the term in their title are not on the first page,
    /// even one among the newest 1,000 (which the old rule, ranking the newest 1,000, put first).
    /// Back within the bound, they rank first.
    @Test func relevanceRanksOnlyWithinTheCountsBound() throws {
        try withDatabase { url in
            let store = try PostgresDiaryStore(url: url)
            defer { store.close() }
            _ = try store.createUser(name: "alice", tokenHash: newTokenHash())
            let matches = EntryPage.countedMatches + 1
            try PostgresDiaryStore.withAdminConnection(url, subject: "seeding", timeout: PostgresDiaryStore.maintenanceTimeout) { session in
                // Seeding is maintenance, not a request: no statement timeout (on a loaded CI
                // machine the rows and their trigram indexes outlasted a request's).
                try session.execute("SET statement_timeout = 0")
                // Entries 1 (the oldest) and 500 hold the term in their title; the rest in their body only.
                try session.execute("""
                    INSERT INTO entries (diary_id, title, body, created, updated)
                    SELECT 1, CASE i WHEN 1 THEN 'kyoto' WHEN 500 THEN 'kyoto too' ELSE 'entry ' || i END, 'kyoto', t, t
                    FROM generate_series(1, $1::integer) AS i,
                        LATERAL (SELECT timestamptz '2026-01-01 00:00:00Z' + i * interval '1 minute' AS t) AS times
                    """, [matches])
                try session.execute("INSERT INTO diary_activity (diary_id, slot, entry_count, public_count) VALUES (1, 0, $1, $1)", [matches])
            }
            let search = EntryQuery(page: PageRequest(page: 1, perPage: 5), filter: EntryFilter(query: "kyoto"))
            let past = try store.entries(search)
            #expect(past.page.total == EntryPage.countedMatches && past.page.totalIsEstimate)
            #expect(past.page.entries.map(\.id) == Array((Int64(matches) - 4...Int64(matches)).reversed()))
            // Two entries no longer hold the term: 999 matches, counted exactly, and ranked.
            for id in [Int64(matches), Int64(matches) - 1] {
                _ = try store.updateEntry(id: id, userID: 1, changes: EntryChanges(body: "osaka"))
            }
            let within = try store.entries(search)
            #expect(within.page.total == matches - 2 && !within.page.totalIsEstimate)
            #expect(within.page.entries.prefix(2).map(\.title) == ["kyoto too", "kyoto"])
            let last = try store.entries(EntryQuery(
                page: PageRequest(page: matches - 2, perPage: 1), filter: EntryFilter(query: "kyoto", order: .newest)))
            #expect(last.page.entries.map(\.title) == ["kyoto"])
        }
    }

    /// A database that cannot be reached is `.unavailable`, and no error shows the password.
    @Test func errorsNameTheDatabaseButNeverThePassword() throws {
        let server = try #require(testServer)
        var wrongDatabase = server.withDatabase("no_such_database_here")
        wrongDatabase.passwordInURL = "hunter2-secret"
        var closedPort = wrongDatabase
        closedPort.port = 1
        for url in [wrongDatabase, closedPort] {
            let error = try #require(expectStoreError(.unavailable) { try PostgresDiaryStore(url: url) })
            let text = "\(error) \(error.detail) \(String(reflecting: error))"
            #expect(!text.contains("hunter2"), "\(text)")
            #expect(text.contains("no_such_database_here"), "\(text)")
        }
    }
}
