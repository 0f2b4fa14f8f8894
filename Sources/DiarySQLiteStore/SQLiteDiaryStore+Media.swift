import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

extension SQLiteDiaryStore {
    public func createMedia(userID: Int64, media: NewMedia, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> Created<MediaItem> {
        try write(.operation("new image of user \(userID)")) { db in
            let now = now()
            if let idempotency, let earlier = try Self.resourceCreated(db, by: idempotency, userID: userID, resource: .media, now: now.date) {
                guard let item = try Self.mediaItem(db, row: earlier) else {
                    throw StoreError(.notFound, .createdByKey(.operation("an image")))
                }
                return Created(item, replayed: true)
            }
            try MediaAccess.checkQuota(used: Self.mediaBytes(db, userID: userID), adding: media.data.count, quota: quota)
            let id = MediaID.random()
            try db.cachedStatement(sql: """
                INSERT INTO media (media_id, user_id, content_type, width, height, bytes, data, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [id.text, userID, media.contentType, media.width, media.height, media.data.count, Data(media.data), now.text])
            if let idempotency {
                try Self.record(idempotency, userID: userID, resource: .media, id: db.lastInsertedRowID, db, now: now.text)
            }
            return Created(MediaItem(
                id: id.text, contentType: media.contentType, width: media.width, height: media.height, bytes: media.data.count,
                created: now.date
            ))
        }
    }

    public func checkMediaUpload(userID: Int64, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> MediaItem? {
        try read(.operation("new image of user \(userID)")) { db in
            if let idempotency {
                let record = try Self.idempotencyRecord(db, for: idempotency, userID: userID, now: now().date)
                if let earlier = try idempotency.replayedID(from: record, creating: .media) {
                    return try Self.mediaItem(db, row: earlier)
                }
            }
            try MediaAccess.checkQuota(used: Self.mediaBytes(db, userID: userID), adding: MediaAccess.smallestImage, quota: quota)
            return nil
        }
    }

    public func media(id: MediaID, viewerID: Int64?) throws(StoreError) -> StoredMedia? {
        try read(.media(id.text)) { db in
            let statement = try db.cachedStatement(sql: """
                SELECT m.media_id, m.content_type, m.width, m.height, m.bytes, m.created, m.user_id,
                \(MediaAccess.linkedFromReadableEntry()), \(MediaAccess.dataIfVisible(viewer: "?"))
                FROM media m WHERE m.media_id = ?
                """)
            guard let row = try Row.fetchOne(statement, arguments: [viewerID, id.text]) else { return nil }
            let linked: Bool = try row.decode(atIndex: 7)
            guard MediaAccess.maySee(ownerID: try row.decode(atIndex: 6), viewerID: viewerID, linkedFromReadableEntry: linked),
                  let data: Data = try row.decode(Data?.self, atIndex: 8)
            else { return nil }
            return StoredMedia(item: try Self.mediaItem(from: row), data: [UInt8](data), isPublic: linked)
        }
    }

    /// One statement for every id (a JSON array of them: `MediaID`s are hex digits only).
    public func mediaSizes(ids: [MediaID], viewerID: Int64?) throws(StoreError) -> [String: MediaSize] {
        guard !ids.isEmpty else { return [:] }
        return try read(.operation("image sizes")) { db in
            let statement = try db.cachedStatement(sql: """
                SELECT m.media_id, m.width, m.height, m.user_id, \(MediaAccess.linkedFromReadableEntry()) FROM media m
                WHERE m.media_id IN (SELECT value FROM json_each(?))
                """)
            let list = "[" + ids.map { "\"\($0.text)\"" }.joined(separator: ",") + "]"
            var sizes: [String: MediaSize] = [:]
            for row in try Row.fetchAll(statement, arguments: [list]) {
                guard MediaAccess.maySee(ownerID: try row.decode(atIndex: 3), viewerID: viewerID, linkedFromReadableEntry: try row.decode(atIndex: 4))
                else { continue }
                sizes[try row.decode(atIndex: 0)] = MediaSize(width: try row.decode(atIndex: 1), height: try row.decode(atIndex: 2))
            }
            return sizes
        }
    }

    public func mediaList(ownerID: Int64, page: PageRequest) throws(StoreError) -> MediaPage {
        try read(.user(ownerID)) { db in
            let total = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM media WHERE user_id = ?"), arguments: [ownerID]) ?? 0
            let statement = try db.cachedStatement(sql: """
                SELECT m.media_id, m.content_type, m.width, m.height, m.bytes, m.created,
                (SELECT group_concat(l.entry_id) \(MediaAccess.ownerLinks()))
                FROM media m WHERE m.user_id = ? ORDER BY m.created DESC, m.media_row DESC LIMIT ? OFFSET ?
                """)
            let items = try Row.fetchAll(statement, arguments: [ownerID, page.perPage, page.offset]).map { row in
                var item = try Self.mediaItem(from: row)
                let ids = (row[6] as String?).map { $0.split(separator: ",").compactMap { Int64($0) } } ?? []
                item.entryIDs = ids.sorted()
                return item
            }
            return MediaPage(media: items, page: page.page, perPage: page.perPage, total: total)
        }
    }

    public func deleteMedia(id: MediaID, userID: Int64) throws(StoreError) {
        try write(.media(id.text)) { db in
            try db.cachedStatement(sql: "DELETE FROM media WHERE media_id = ? AND user_id = ?").execute(arguments: [id.text, userID])
            guard db.changesCount == 1 else { throw StoreError(.notFound, .media(id.text)) }
        }
    }
}

// MARK: - Rows and links

extension SQLiteDiaryStore {
    /// An image's first six columns: media_id, content_type, width, height, bytes, created.
    static func mediaItem(from row: Row) throws -> MediaItem {
        try MediaItem(
            id: row.decode(atIndex: 0), contentType: row.decode(atIndex: 1), width: row.decode(atIndex: 2),
            height: row.decode(atIndex: 3), bytes: row.decode(atIndex: 4), created: date(row.decode(atIndex: 5), column: "media.created")
        )
    }

    /// The bytes `userID`'s images take.
    static func mediaBytes(_ db: Database, userID: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT coalesce(sum(bytes), 0) FROM media WHERE user_id = ?"), arguments: [userID]) ?? 0
    }

    static func mediaItem(_ db: Database, row: Int64) throws -> MediaItem? {
        let statement = try db.cachedStatement(sql: """
            SELECT media_id, content_type, width, height, bytes, created FROM media WHERE media_row = ?
            """)
        return try Row.fetchOne(statement, arguments: [row]).map(mediaItem(from:))
    }

    /// Records the images `body` links to as the entry's, replacing the ones it had when
    /// `replacing`: called by every write of a body, in its transaction.
    static func setMediaLinks(_ db: Database, entryID: Int64, body: String, replacing: Bool) throws {
        if replacing {
            try db.cachedStatement(sql: "DELETE FROM entry_media WHERE entry_id = ?").execute(arguments: [entryID])
        }
        let ids = MediaLinks.ids(in: body)
        guard !ids.isEmpty else { return }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO entry_media (entry_id, media_id) VALUES (?, ?)")
        for id in ids {
            try insert.execute(arguments: [entryID, id.text])
        }
    }
}
