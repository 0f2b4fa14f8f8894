import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO
import StoreKernel

extension PostgresDiaryStore {
    public func createMedia(userID: Int64, media: NewMedia, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> Created<MediaItem> {
        try write(.operation("new image of user \(userID)")) { session in
            let now = now()
            if let idempotency, let earlier = try Self.resourceCreated(session, by: idempotency, userID: userID, resource: .media, now: now) {
                guard let item = try Self.mediaItem(session, row: earlier) else {
                    throw StoreError(.notFound, .createdByKey(.operation("an image")))
                }
                return Created(item, replayed: true)
            }
            // Two uploads of one user at once on two servers: the lock on the user's row makes
            // the second read the sum after the first committed (READ COMMITTED), so both
            // cannot pass the quota.
            try session.execute("SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE", [userID])
            try MediaAccess.checkQuota(used: Self.mediaBytes(session, userID: userID), adding: media.data.count, quota: quota)
            let id = MediaID.random()
            guard let row = try session.one((Int64).self, """
                INSERT INTO media (media_id, user_id, content_type, width, height, bytes, data, created)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING media_row
                """, [id.text, userID, media.contentType, media.width, media.height, media.data.count, ByteBuffer(bytes: media.data), now])
            else { throw StoreError(.unavailable, .operation("new image"), detail: "INSERT returned no row") }
            if let idempotency {
                try Self.record(idempotency, userID: userID, resource: .media, id: row, session, now: now)
            }
            return Created(MediaItem(
                id: id.text, contentType: media.contentType, width: media.width, height: media.height, bytes: media.data.count, created: now
            ))
        }
    }

    public func checkMediaUpload(userID: Int64, quota: Int64, idempotency: IdempotencyKey?) throws(StoreError) -> MediaItem? {
        try read(.operation("new image of user \(userID)")) { session in
            if let idempotency {
                let record = try Self.idempotencyRecord(session, for: idempotency, userID: userID, now: now())
                if let earlier = try idempotency.replayedID(from: record, creating: .media) {
                    return try Self.mediaItem(session, row: earlier)
                }
            }
            try MediaAccess.checkQuota(used: Self.mediaBytes(session, userID: userID), adding: MediaAccess.smallestImage, quota: quota)
            return nil
        }
    }

    public func media(id: MediaID, viewerID: Int64?) throws(StoreError) -> StoredMedia? {
        try statement(.media(id.text)) { session in
            guard let row = try session.query(Self.mediaSQL, [id.text, viewerID]).first else { return nil }
            let (mediaID, type, width, height, bytes, created, ownerID, linked, data) = try row.decode(
                (String, String, Int, Int, Int, Date, Int64, Bool, ByteBuffer?).self
            )
            guard MediaAccess.maySee(ownerID: ownerID, viewerID: viewerID, linkedFromReadableEntry: linked), let data else { return nil }
            let item = MediaItem(id: mediaID, contentType: type, width: width, height: height, bytes: bytes, created: created)
            return StoredMedia(item: item, data: Array(data.readableBytesView), isPublic: linked)
        }
    }

    /// One image with its owner, whether an entry anyone may read links to it, and its bytes
    /// only when the viewer ($2, NULL for anyone) may see it: a refusal reads no TOAST.
    static let mediaSQL = PreparedSQL("""
        SELECT m.media_id, m.content_type, m.width, m.height, m.bytes, m.created, m.user_id,
        \(MediaAccess.linkedFromReadableEntry()), \(MediaAccess.dataIfVisible(viewer: "$2::bigint"))
        FROM media m WHERE m.media_id = $1::text
        """)

    public func mediaSizes(ids: [MediaID], viewerID: Int64?) throws(StoreError) -> [String: MediaSize] {
        guard !ids.isEmpty else { return [:] }
        return try statement(.operation("image sizes")) { session in
            let rows = try session.query("""
                SELECT m.media_id, m.width, m.height, m.user_id, \(MediaAccess.linkedFromReadableEntry()) FROM media m
                WHERE m.media_id = ANY($1::text[])
                """, [ids.map(\.text)])
            var sizes: [String: MediaSize] = [:]
            for row in rows {
                let (id, width, height, ownerID, linked) = try row.decode((String, Int, Int, Int64, Bool).self)
                guard MediaAccess.maySee(ownerID: ownerID, viewerID: viewerID, linkedFromReadableEntry: linked) else { continue }
                sizes[id] = MediaSize(width: width, height: height)
            }
            return sizes
        }
    }

    public func mediaList(ownerID: Int64, page: PageRequest) throws(StoreError) -> MediaPage {
        try read(.user(ownerID)) { session in
            let total = try session.one((Int64).self, "SELECT count(*) FROM media WHERE user_id = $1", [ownerID]) ?? Int64(0)
            let rows = try session.query("""
                SELECT m.media_id, m.content_type, m.width, m.height, m.bytes, m.created,
                ARRAY(SELECT l.entry_id \(MediaAccess.ownerLinks()) ORDER BY l.entry_id)
                FROM media m WHERE m.user_id = $1 ORDER BY m.created DESC, m.media_row DESC LIMIT $2 OFFSET $3
                """, [ownerID, page.perPage, page.offset])
            let items = try rows.map { row in
                let (id, type, width, height, bytes, created, entryIDs) = try row.decode((String, String, Int, Int, Int, Date, [Int64]).self)
                return MediaItem(id: id, contentType: type, width: width, height: height, bytes: bytes, created: created, entryIDs: entryIDs)
            }
            return MediaPage(media: items, page: page.page, perPage: page.perPage, total: Int(total))
        }
    }

    public func deleteMedia(id: MediaID, userID: Int64) throws(StoreError) {
        try write(.media(id.text)) { session in
            let deleted = try session.execute("DELETE FROM media WHERE media_id = $1 AND user_id = $2", [id.text, userID])
            guard deleted == 1 else { throw StoreError(.notFound, .media(id.text)) }
        }
    }
}

// MARK: - Rows and links

extension PostgresDiaryStore {
    /// The bytes `userID`'s images take.
    static func mediaBytes(_ session: SQLSession, userID: Int64) throws -> Int64 {
        try session.one((Int64).self, "SELECT coalesce(sum(bytes), 0)::bigint FROM media WHERE user_id = $1", [userID]) ?? Int64(0)
    }

    static func mediaItem(_ session: SQLSession, row: Int64) throws -> MediaItem? {
        try session.one((String, String, Int, Int, Int, Date).self, """
            SELECT media_id, content_type, width, height, bytes, created FROM media WHERE media_row = $1
            """, [row]).map { MediaItem(id: $0, contentType: $1, width: $2, height: $3, bytes: $4, created: $5) }
    }

    /// Records the images `body` links to as the entry's, replacing the ones it had when
    /// `replacing`: called by every write of a body, in its transaction (a new entry's usual
    /// path does it in `insertEntrySQL`).
    static func setMediaLinks(_ session: SQLSession, entryID: Int64, body: String, replacing: Bool) throws {
        if replacing {
            try session.execute("DELETE FROM entry_media WHERE entry_id = $1", [entryID])
        }
        let ids = MediaLinks.ids(in: body).map(\.text)
        guard !ids.isEmpty else { return }
        try session.execute(
            "INSERT INTO entry_media (entry_id, media_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING", [entryID, ids]
        )
    }
}
