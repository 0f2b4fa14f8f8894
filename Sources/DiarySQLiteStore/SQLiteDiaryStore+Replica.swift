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
            try Self.withoutChangeFeed(db)
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
        // An entry the replica already holds as it is now is left alone. The token's own public
        // entries come twice in a first sync (once in each of its sequences), and an UPDATE that
        // sets `title` and `body`, even to the same text, runs the search indexes' update
        // triggers: each index takes the entry out and tokenizes it back in, twice the work of
        // writing it once (docs/offline.md, "A first sync").
        try db.cachedStatement(sql: """
            INSERT INTO entries (entry_id, diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (entry_id) DO UPDATE SET diary_id = excluded.diary_id, title = excluded.title, body = excluded.body,
            created = excluded.created, updated = excluded.updated, visibility = excluded.visibility,
            draft_visibility = excluded.draft_visibility, scheduled_visibility = excluded.scheduled_visibility
            WHERE (diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
            IS NOT (excluded.diary_id, excluded.title, excluded.body, excluded.created, excluded.updated, excluded.visibility,
            excluded.draft_visibility, excluded.scheduled_visibility)
            """).execute(arguments: [
                entry.id, entry.diaryID, entry.title, entry.body, created, updated, stored.visibility.rawValue, stored.draftVisibility?.rawValue,
                stored.scheduledVisibility?.rawValue,
            ])
        try setTags(db, entryID: entry.id, tags: entry.tags, replacing: true)
        try touchDiary(db, id: entry.diaryID, now: updated, publicly: stored.visibility == .public)
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
