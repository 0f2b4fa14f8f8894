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
    /// leaves the replica as it was after the last whole page. On an empty replica (a first
    /// sync) the search indexes are left to `buildDeferredSearchIndexes()`, once, at the end.
    /// `owner`: the name of the token's user (nil without a token), whose private entries the
    /// replica is read with.
    public func applyReplicated(_ changes: [EntryChange], cursor: String, syncedAt: Date, owner: String?) throws(StoreError) {
        try write(.operation("replica page")) { db in
            try Self.withoutChangeFeed(db)
            try Self.deferSearchIndexesOnEmptyReplica(db)
            for change in changes {
                switch change {
                case .deleted(let id):
                    try db.cachedStatement(sql: "DELETE FROM entries WHERE entry_id = ?").execute(arguments: [id])
                case .entry(let entry):
                    try Self.replicate(entry, db)
                }
            }
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

    /// Writes `entry` as the server gave it, with its author and diary made when first seen.
    static func replicate(_ entry: Entry, _ db: Database) throws {
        let created = RFC3339.string(from: entry.created), updated = RFC3339.string(from: entry.updated)
        try db.cachedStatement(sql: """
            INSERT INTO users (name, token_hash, created) VALUES (?, lower(hex(randomblob(32))), ?) ON CONFLICT (name) DO NOTHING
            """).execute(arguments: [entry.author, created])
        try db.cachedStatement(sql: """
            INSERT INTO diaries (diary_id, user_id, title, created, updated)
            SELECT ?, user_id, '', ?, ? FROM users WHERE name = ? ON CONFLICT (diary_id) DO NOTHING
            """).execute(arguments: [entry.diaryID, created, updated, entry.author])
        // A draft or a scheduled entry is kept as the server keeps it (private, its visibility
        // to come beside it), so that the replica lists and marks it as the server does.
        let stored = EntryDraft.Stored(entry.visibility, draft: entry.draft, scheduled: entry.scheduled)
        try db.cachedStatement(sql: """
            INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (entry_id) DO UPDATE SET diary_id = excluded.diary_id, title = excluded.title, body = excluded.body,
            created = excluded.created, updated = excluded.updated, visibility = excluded.visibility,
            draft_visibility = excluded.draft_visibility, scheduled_visibility = excluded.scheduled_visibility
            """).execute(arguments: [
                entry.id, entry.diaryID, entry.title, entry.body, created, updated, stored.visibility.rawValue, stored.draftVisibility?.rawValue,
                stored.scheduledVisibility?.rawValue,
            ])
        try setTags(db, entryID: entry.id, tags: entry.tags, replacing: true)
        try touchDiary(db, id: entry.diaryID, now: updated, publicly: stored.visibility == .public)
    }
}

// MARK: - Search indexes built once, at the end of a first sync

extension SQLiteDiaryStore {
    /// The triggers that keep the search indexes (`entries_fts`, `entries_private_fts`,
    /// `entries_grams`) in step with `entries`, one entry at a time.
    static let searchIndexTriggers = [
        "entries_fts_insert", "entries_fts_delete", "entries_fts_update", "entries_grams_insert", "entries_grams_delete",
        "entries_grams_update",
    ]
    /// A trigger turned off while its indexes lag is kept, its SQL as the schema made it, in the
    /// setting of this prefix and its name: one is present exactly while the indexes lag.
    static let deferredTriggerSetting = "replica_deferred_trigger:"

    /// On an empty replica (a first sync, or one after `--reset` or a 410), turns the search
    /// indexes' triggers off for the pages to come, in the first page's transaction: indexing
    /// each entry as it is written took most of a first sync (each page's commit flushes and
    /// merges the FTS5 segments anew), and the indexes are built once, from every entry, by
    /// `buildDeferredSearchIndexes()` at the sync's end. The triggers' SQL is kept in the file,
    /// so that a sync cut off leaves a replica that says its indexes lag: the next sync goes on
    /// without them and builds them at its end, and a search before that builds them first.
    static func deferSearchIndexesOnEmptyReplica(_ db: Database) throws {
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM entries)")) == false else { return }
        for name in searchIndexTriggers {
            let trigger = "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?"
            guard let sql = try String.fetchOne(db, sql: trigger, arguments: [name]) else { continue }
            try db.execute(sql: "INSERT INTO settings (name, value) VALUES (?, ?)", arguments: [deferredTriggerSetting + name, Data(sql.utf8)])
            try db.execute(sql: "DROP TRIGGER \(name)")
        }
    }

    /// Whether a first sync left the search indexes to be built: it was cut off before its end.
    public func searchIndexesLag() throws(StoreError) -> Bool {
        try read(.operation("replica search indexes")) { db in try !Self.deferredTriggers(db).isEmpty }
    }

    /// Builds the search indexes a first sync left off, from the entries as they now are, and
    /// turns their triggers back on, in one transaction; nothing when no index lags (also when
    /// another process built them meanwhile).
    public func buildDeferredSearchIndexes() throws(StoreError) {
        guard try searchIndexesLag() else { return }
        try write(.operation("replica search indexes")) { db in
            let triggers = try Self.deferredTriggers(db)
            guard !triggers.isEmpty else { return }
            try Self.fillSearchIndexes(db)
            for sql in triggers {
                try db.execute(sql: sql)
            }
            try db.execute(sql: "DELETE FROM settings WHERE name GLOB ?", arguments: [Self.deferredTriggerSetting + "*"])
        }
    }

    /// The SQL of each search-index trigger a first sync turned off.
    static func deferredTriggers(_ db: Database) throws -> [String] {
        try Data.fetchAll(db.cachedStatement(sql: "SELECT value FROM settings WHERE name GLOB ? ORDER BY name"), arguments: [Self.deferredTriggerSetting + "*"])
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Fills the three search indexes from `entries` with what their triggers would have put
    /// there entry by entry: a public entry's title and body in `entries_fts`, any other's in
    /// `entries_private_fts` (schema-v2.sql), every entry's title, a space and its body in
    /// `entries_grams` (schema-v3.sql). Emptied first, whatever they held.
    static func fillSearchIndexes(_ db: Database) throws {
        for index in ["entries_fts", "entries_private_fts", "entries_grams"] {
            try db.execute(sql: "INSERT INTO \(index) (\(index)) VALUES ('delete-all')")
        }
        try db.execute(sql: """
            INSERT INTO entries_fts (rowid, title, body) SELECT entry_id, title, body FROM entries WHERE visibility = 'public';
            INSERT INTO entries_private_fts (rowid, title, body) SELECT entry_id, title, body FROM entries WHERE visibility <> 'public';
            INSERT INTO entries_grams (rowid, text) SELECT entry_id, title || ' ' || body FROM entries;
            """)
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
