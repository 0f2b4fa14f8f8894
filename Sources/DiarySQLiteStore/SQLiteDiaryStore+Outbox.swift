import DiaryAPI
import DiaryStore
import Foundation
import GRDB

/// A change written to a replica while the server was out of reach, waiting to be sent.
public struct OutboxItem: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case add, edit, delete
    }

    public var sequence: Int64
    public var kind: Kind
    /// The entry it changes: a local, negative id for an entry added offline.
    public var entryID: Int64
    /// The JSON body to send (`NewEntry` for an add, `EntryPatch` for an edit; empty for a delete).
    public var request: String
    /// The `Idempotency-Key` made when the change was written: a retry never writes twice.
    public var idempotencyKey: String
    /// `If-Match`: the tag of the entry the change was based on; nil when an earlier change to
    /// the same entry waits in the outbox (the tag its answer brings is used then).
    public var baseTag: String?
    public var written: Date

    public init(
        sequence: Int64 = 0, kind: Kind, entryID: Int64, request: String, idempotencyKey: String, baseTag: String?, written: Date
    ) {
        self.sequence = sequence
        self.kind = kind
        self.entryID = entryID
        self.request = request
        self.idempotencyKey = idempotencyKey
        self.baseTag = baseTag
        self.written = written
    }
}

/// The replica's outbox: a table of its own in the replica's file (not a migration of the
/// server's schema: only replicas have it), and the local entry each change shows at once.
extension SQLiteDiaryStore {
    /// Whether the outbox table was made (by the first change written offline). Asked of
    /// `sqlite_master` directly: GRDB's `tableExists` first loads its description of the whole
    /// schema (perf: 2 % of the samples of an offline `diary list`, more than its query).
    static func hasOutbox(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'replica_outbox'")) ?? false
    }

    /// Makes the outbox table if the file has none: by the first change queued, so that a
    /// read of the replica (`diary list --offline`) never writes.
    static func prepareOutbox(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS replica_outbox (
                sequence        INTEGER PRIMARY KEY AUTOINCREMENT,
                kind            TEXT NOT NULL CHECK (kind IN ('add', 'edit', 'delete')),
                entry_id        INTEGER NOT NULL,
                request         TEXT NOT NULL,
                idempotency_key TEXT NOT NULL,
                base_tag        TEXT,
                written         TEXT NOT NULL
            ) STRICT
            """)
    }

    /// Queues `item` and shows its result in the replica at once, in one transaction: `local`
    /// is the entry as it now reads (an add gets the next negative id, which is returned), or
    /// nil for a delete. An edit or delete without a `baseTag` gets the tag of the entry as
    /// stored, unless an earlier change to it waits (then the answer to that one gives it).
    public func queue(_ item: OutboxItem, local: Entry?) throws(StoreError) -> Int64 {
        try write(.operation("replica outbox")) { db in
            try Self.prepareOutbox(db)
            var item = item
            var local = local
            if item.kind == .add {
                let lowest = try Int64.fetchOne(db, sql: "SELECT min(entry_id) FROM entries") ?? 0
                item.entryID = min(lowest, 0) - 1
                local?.id = item.entryID
            } else if item.baseTag == nil, item.entryID > 0,
                      try Int64.fetchOne(db, sql: "SELECT count(*) FROM replica_outbox WHERE entry_id = ?", arguments: [item.entryID]) == 0,
                      let stored = try Self.fetchEntry(db, id: item.entryID) {
                // The first change to a synced entry: `If-Match` the tag of the entry as the
                // server gave it (the same bytes as GET), which the feed wrote here unchanged.
                item.baseTag = ResponseTag.of(stored)
            }
            try Self.replicate([local.map(EntryChange.entry) ?? .deleted(entryID: item.entryID)], db)
            try db.execute(sql: """
                INSERT INTO replica_outbox (kind, entry_id, request, idempotency_key, base_tag, written) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [item.kind.rawValue, item.entryID, item.request, item.idempotencyKey, item.baseTag, RFC3339.string(from: item.written)])
            return item.entryID
        }
    }

    /// Every change waiting, oldest first.
    public func outbox() throws(StoreError) -> [OutboxItem] {
        try read(.operation("replica outbox")) { db in
            guard try Self.hasOutbox(db) else { return [] }
            return try Row.fetchAll(db, sql: """
                SELECT sequence, kind, entry_id, request, idempotency_key, base_tag, written FROM replica_outbox ORDER BY sequence
                """).map { row in
                OutboxItem(
                    sequence: row[0], kind: OutboxItem.Kind(rawValue: row[1]) ?? .edit, entryID: row[2], request: row[3],
                    idempotencyKey: row[4], baseTag: row[5], written: RFC3339.date(from: row[6]) ?? Date(timeIntervalSince1970: 0)
                )
            }
        }
    }

    /// Takes a sent (or settled) change out of the outbox; for an add, its local entry goes too
    /// (the server's comes with the next page of changes), and later changes to it name `sentID`.
    public func settle(_ item: OutboxItem, sentID: Int64?) throws(StoreError) {
        try write(.operation("replica outbox")) { db in
            try db.execute(sql: "DELETE FROM replica_outbox WHERE sequence = ?", arguments: [item.sequence])
            if item.kind == .add {
                try db.execute(sql: "DELETE FROM entries WHERE entry_id = ?", arguments: [item.entryID])
                if let sentID {
                    try db.execute(sql: "UPDATE replica_outbox SET entry_id = ? WHERE entry_id = ?", arguments: [sentID, item.entryID])
                }
            }
        }
    }
}

extension SQLiteDiaryStore {
    /// The token's user as the replica knows them (from `replica_owner`) and their first
    /// diary, where an entry written offline without `--diary` goes; nil when the replica holds
    /// no diary of theirs.
    public func replicaOwnerDiary() throws(StoreError) -> (name: String, diaryID: Int64)? {
        try read(.operation("replica owner")) { db in
            guard let data = try Data.fetchOne(db, sql: "SELECT value FROM settings WHERE name = 'replica_owner'") else { return nil }
            let name = String(decoding: data, as: UTF8.self)
            let diary = try Int64.fetchOne(db, sql: """
                SELECT min(d.diary_id) FROM diaries d JOIN users u ON u.user_id = d.user_id WHERE u.name = ?
                """, arguments: [name])
            return diary.map { (name, $0) }
        }
    }

    /// The ids of entries whose change waits in the outbox (added or edited offline).
    public func unsentEntryIDs() throws(StoreError) -> Set<Int64> {
        try read(.operation("replica outbox")) { db in
            guard try Self.hasOutbox(db) else { return [] }
            return Set(try Int64.fetchAll(db, sql: "SELECT entry_id FROM replica_outbox WHERE kind IN ('add', 'edit')"))
        }
    }
}
