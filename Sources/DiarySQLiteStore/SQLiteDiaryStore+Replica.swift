import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

/// The store as the CLI's offline replica of a server: the server's entries written as they
/// are (ids, dates, authors), so that the store's own reads and search answer offline as the
/// server would. Authors become local users with a random token hash nobody holds, diaries are
/// made on first sight; the feed's cursor and the time of the last sync are settings.
extension SQLiteDiaryStore {
    /// Applies one page of the change feed and its cursor in one transaction: a sync cut off
    /// leaves the replica as it was after the last whole page. Committed without an fsync
    /// (`writeWithoutSync`): a page a power loss takes back goes with its cursor, and the next
    /// sync asks for it again.
    /// `owner`: the name of the token's user (nil without a token), whose private entries the
    /// replica is read with.
    public func applyReplicated(_ changes: [EntryChange], cursor: String, syncedAt: Date, owner: String?) throws(StoreError) {
        try writeWithoutSync(.operation("replica page")) { db in
            // Both settle how entries are written: a page without changes (every sync with
            // nothing new) writes none, and skips their statements.
            if !changes.isEmpty {
                try Self.withoutChangeFeed(db)
                try Self.withoutChunkIndex(db)
                try Self.mergingLessOften(db)
            }
            try Self.replicate(changes, db)
            let setting = try db.cachedStatement(sql: """
                INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """)
            try setting.execute(arguments: ["replica_cursor", Data(cursor.utf8)])
            try setting.execute(arguments: ["replica_synced", Data(RFC3339.string(from: syncedAt).utf8)])
            if let owner { try setting.execute(arguments: ["replica_owner", Data(owner.utf8)]) }
        }
    }

    /// Where the last sync left off, when it ended, the name of the token's user (kept so that
    /// a sync need not ask the server `/api/me` each time: a token never changes hands, and the
    /// replica's file is the token's) and their local id (nil without a token, or while the
    /// replica holds nothing of theirs); nils for a replica never synced.
    public func replicaState() throws(StoreError) -> (cursor: String?, syncedAt: Date?, owner: String?, ownerID: Int64?) {
        try read(.operation("replica state")) { db in
            let statement = try db.cachedStatement(sql: "SELECT value FROM settings WHERE name = ?")
            func text(_ name: String) throws -> String? {
                try Data.fetchOne(statement, arguments: [name]).map { String(decoding: $0, as: UTF8.self) }
            }
            let owner = try text("replica_owner")
            let ownerID = try owner.flatMap { name in
                try Int64.fetchOne(db.cachedStatement(sql: "SELECT user_id FROM users WHERE name = ?"), arguments: [name])
            }
            return (try text("replica_cursor"), try text("replica_synced").flatMap(RFC3339.date(from:)), owner, ownerID)
        }
    }

    /// A replica serves no change feed: the triggers that number every write for one (schema
    /// v5) would only fill `entry_changes` with rows nobody reads, at a cost on every entry
    /// written (a first sync writes them all). Dropped in the replica's file only, in the
    /// page's transaction, and again should a later migration bring them back.
    static func withoutChangeFeed(_ db: Database) throws {
        for trigger in ["entries_changes_insert", "entries_changes_update", "entries_changes_delete"] {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(trigger)")
        }
        try db.execute(sql: "DELETE FROM entry_changes")
    }

    /// A replica keeps no index of words (schema v8): one user's diary, searched on one
    /// machine, where the trigram indexes find a rare word fast enough (31 ms at 100,000
    /// entries), and the index tripled a first sync of 10,000 entries (5.9 to 18 s) with a
    /// vocabulary lookup for each word of each entry. Its triggers are dropped, the index and
    /// the vocabulary emptied, in the replica's file only; a search then narrows nothing
    /// (`narrowings`, which asks whether the triggers are there).
    static func withoutChunkIndex(_ db: Database) throws {
        guard try keepsChunkIndex(db) else { return }
        for trigger in ["entries_chunks_insert", "entries_chunks_update", "entries_chunks_delete"] {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(trigger)")
        }
        try db.execute(sql: "INSERT INTO entries_chunks (entries_chunks) VALUES ('delete-all')")
        try db.execute(sql: "DELETE FROM entry_vocabulary")
        try db.execute(sql: "INSERT INTO entry_vocabulary_fts (entry_vocabulary_fts) VALUES ('delete-all')")
    }

    /// How many segments of a level each search index of a replica lets pile up before it merges
    /// them into one (FTS5's `automerge`; 4 by default, which the server keeps). A first sync
    /// writes every entry in pages of up to 500, each page a few segments of each index, and
    /// FTS5 spent a quarter of the trigram index's work merging them at 4: the same 10,000
    /// entries, 20 transactions, `sqlite3` through Python, 3.6–3.8 s of CPU at 4, 2.8 s at 8
    /// or 16, 2.7–2.8 s at 0 (never merged but at 16 segments, `crisismerge`). At 8 a level
    /// still merges, so a search reads a few more segments at most.
    static let replicaAutomerge = 8

    /// Sets `replicaAutomerge` on each search index that has another value (a new replica, or
    /// one made by an older `diary`): a setting kept in the index's own `_config` table, so
    /// written once, in the first page's transaction.
    static func mergingLessOften(_ db: Database) throws {
        for index in ["entries_fts", "entries_private_fts", "entries_grams"] {
            let current = try Int.fetchOne(db.cachedStatement(sql: "SELECT v FROM \(index)_config WHERE k = 'automerge'"))
            if current != replicaAutomerge {
                try db.execute(sql: "INSERT INTO \(index) (\(index), rank) VALUES ('automerge', \(replicaAutomerge))")
            }
        }
    }

    /// Writes a page's changes as the server gave them, its authors and diaries made when first
    /// seen. The page's entries reach `entries` in two statements, one deleting and one
    /// inserting, not one statement each: the search indexes' triggers still index every entry,
    /// but FTS5 writes its pending terms out as a new segment at each statement that writes
    /// to `entries` (its savepoint), so an entry written alone became a segment alone, and
    /// merging those segments cost more than tokenizing (docs/offline.md, "A first sync").
    static func replicate(_ changes: [EntryChange], _ db: Database) throws {
        let deleted = changes.compactMap { change -> Int64? in
            if case .deleted(let id) = change { id } else { nil }
        }
        let entries = changes.compactMap { change -> Entry? in
            if case .entry(let entry) = change { entry } else { nil }
        }
        if !deleted.isEmpty {
            try db.cachedStatement(sql: "DELETE FROM entries WHERE entry_id IN (SELECT value FROM json_each(?))")
                .execute(arguments: ["[" + deleted.map(String.init).joined(separator: ",") + "]"])
        }
        guard !entries.isEmpty else { return }
        try db.execute(sql: """
            CREATE TEMP TABLE IF NOT EXISTS replica_page (
                entry_id INTEGER PRIMARY KEY, diary_id INTEGER, title TEXT, body TEXT, created TEXT, updated TEXT,
                visibility TEXT, draft_visibility TEXT, scheduled_visibility TEXT)
            """)
        for entry in entries {
            try stage(entry, db)
        }
        // An entry the replica already holds as it is now is left alone. The token's own public
        // entries come twice in a first sync (once in each of its sequences), and an UPDATE that
        // sets `title` and `body`, even to the same text, runs the search indexes' update
        // triggers: each index takes the entry out and tokenizes it back in. In the order of
        // ids: FTS5 also writes its pending terms out when an id is not above the last one.
        // (`WHERE true`: without it SQLite would read ON CONFLICT as the start of a join's ON.)
        try db.cachedStatement(sql: """
            INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
            SELECT entry_id, diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility
            FROM temp.replica_page WHERE true ORDER BY entry_id
            ON CONFLICT (entry_id) DO UPDATE SET diary_id = excluded.diary_id, title = excluded.title, body = excluded.body,
            created = excluded.created, updated = excluded.updated, visibility = excluded.visibility,
            draft_visibility = excluded.draft_visibility, scheduled_visibility = excluded.scheduled_visibility
            WHERE (diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
            IS NOT (excluded.diary_id, excluded.title, excluded.body, excluded.created, excluded.updated, excluded.visibility,
            excluded.draft_visibility, excluded.scheduled_visibility)
            """).execute()
        try db.cachedStatement(sql: "DELETE FROM temp.replica_page").execute()
        for entry in entries {
            try setTags(db, entryID: entry.id, tags: entry.tags, replacing: true)
            try touchDiary(db, id: entry.diaryID, now: RFC3339.string(from: entry.updated), publicly: stored(entry).visibility == .public)
        }
    }

    /// `entry`'s visibility columns as the server keeps them: a draft or a scheduled entry
    /// private, its visibility to come beside it, so that the replica lists and marks it as the
    /// server does.
    static func stored(_ entry: Entry) -> EntryDraft.Stored {
        EntryDraft.Stored(entry.visibility, draft: entry.draft, scheduled: entry.scheduled)
    }

    /// Makes `entry`'s author and diary when first seen, and puts the entry in `replica_page`.
    /// (A page sends an entry once; should one come twice, the later wins, as it did when each
    /// was written in turn.)
    static func stage(_ entry: Entry, _ db: Database) throws {
        let created = RFC3339.string(from: entry.created), updated = RFC3339.string(from: entry.updated)
        try db.cachedStatement(sql: """
            INSERT INTO users (name, token_hash, created) VALUES (?, lower(hex(randomblob(32))), ?) ON CONFLICT (name) DO NOTHING
            """).execute(arguments: [entry.author, created])
        try db.cachedStatement(sql: """
            INSERT INTO diaries (diary_id, user_id, title, created, updated)
            SELECT ?, user_id, '', ?, ? FROM users WHERE name = ? ON CONFLICT (diary_id) DO NOTHING
            """).execute(arguments: [entry.diaryID, created, updated, entry.author])
        let stored = stored(entry)
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO temp.replica_page VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(arguments: [
            entry.id, entry.diaryID, entry.title, entry.body, created, updated, stored.visibility.rawValue, stored.draftVisibility?.rawValue,
            stored.scheduledVisibility?.rawValue,
        ])
    }
}

extension SQLiteDiaryStore {
    /// How many entries the replica holds, whoever may read them.
    public func replicaEntryCount() throws(StoreError) -> Int {
        try read(.operation("replica entries")) { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM entries")) ?? 0
        }
    }
}
