import DiaryAPI
import DiaryStore
import Foundation
import PostgresNIO
import StoreKernel

extension PostgresDiaryStore {
    public func entry(id: Int64, viewerID: Int64?) throws(StoreError) -> Entry? {
        try statement(.entry(id)) { session in
            try session.query(Self.visibleEntrySQL, [id, viewerID]).first.map(Self.entry(from:))
        }
    }

    /// The entry $1 as viewer $2 (NULL: anyone) sees it: a private entry exists for its owner
    /// only (`EntryAccess.mayRead`, in SQL, so that the read stays one prepared statement).
    static let visibleEntrySQL = PreparedSQL(
        "\(entryColumns) WHERE e.entry_id = $1::bigint AND (e.visibility <> 'private' OR d.user_id = $2::bigint)"
    )

    public func lastModified(diaryID: Int64?, viewerID: Int64?) throws(StoreError) -> Date? {
        try statement(diaryID.map { .diary($0) } ?? .operation("diaries")) { session in
            let seen = EntryAccess.seen("updated", else: "public_updated", viewer: "$1")
            if let diaryID {
                return try session.one((Date).self, "SELECT \(seen) FROM diary_totals WHERE diary_id = $2", [viewerID, diaryID])
            }
            // One row, NULL when there is no diary at all.
            return try session.one((Date?).self, "SELECT max(\(seen)) FROM diary_totals", [viewerID]) ?? nil
        }
    }

    public func createEntry(
        userID: Int64, diaryID: Int64?, title: String, body: String, tags: [String], created: Date?, visibility: Visibility?,
        draft: Bool, idempotency: IdempotencyKey?
    ) throws(StoreError) -> Created<Entry> {
        let subject = diaryID.map { "new entry in diary \($0)" } ?? "new entry of user \(userID)"
        func entry(_ inserted: InsertedEntry, created: Date, now: Date) -> Entry {
            Entry(
                id: inserted.id, diaryID: inserted.diaryID, author: inserted.author, title: title, body: body, created: created,
                updated: now, tags: tags.sorted(), visibility: inserted.visibility, draft: draft, scheduled: inserted.scheduled
            )
        }
        if idempotency == nil {
            // The usual post: one statement, sent with BEGIN and COMMIT (see insertEntry).
            let now = now()
            let created = created.map(Self.wholeSeconds) ?? now
            let answer = try write(.operation(subject)) { session in
                try Self.insertEntry(
                    session, userID: userID, diaryID: diaryID, title: title, body: body, tags: tags, created: created,
                    visibility: visibility, draft: draft, now: now
                )
            }
            do {
                if let inserted = try Self.insertedEntry(answer) {
                    return Created(entry(inserted, created: created, now: now))
                }
            } catch {
                throw StoreError(error, subject: .operation(subject))
            }
            // Nothing written: no such diary of the user's; below, which.
        }
        return try write(.operation(subject)) { session in
            let now = now()
            if let idempotency, let earlier = try Self.resourceCreated(session, by: idempotency, userID: userID, resource: .entry, now: now) {
                guard let entry = try Self.fetchEntry(session, id: earlier) else {
                    throw StoreError(.notFound, .createdByKey(.entry(earlier)))
                }
                return Created(entry, replayed: true)
            }
            let created = created.map(Self.wholeSeconds) ?? now
            let inserted: InsertedEntry
            if let written = try Self.insertedEntry(Self.insertEntry(
                session, userID: userID, diaryID: diaryID, title: title, body: body, tags: tags, created: created,
                visibility: visibility, draft: draft, now: now
            ), waitingOn: session) {
                inserted = written
            } else {
                // Not the user's diary, no such diary, or the user has none yet: which, and the
                // first diary made (rare: one more round trip or two).
                let found = try Self.diaryForNewEntry(session, userID: userID, diaryID: diaryID, now: now)
                let chosen = visibility ?? found.defaultVisibility
                let stored = EntryDraft.Stored(chosen, draft: draft, created: created, now: now)
                guard let id = try session.one((Int64).self, """
                    INSERT INTO entries (diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING entry_id
                    """, [
                        found.id, title, body, created, now, stored.visibility.rawValue, stored.draftVisibility?.rawValue,
                        stored.scheduledVisibility?.rawValue,
                    ])
                else { throw StoreError(.unavailable, .operation(subject), detail: "INSERT returned no id") }
                let isPublic = stored.visibility == .public ? 1 : 0
                try Self.touchDiary(session, id: found.id, now: now, publicly: isPublic == 1, entries: 1, publicEntries: isPublic)
                try Self.setTags(session, entryID: id, tags: tags, replacing: false)
                try Self.setMediaLinks(session, entryID: id, body: body, replacing: false)
                inserted = InsertedEntry(id: id, diaryID: found.id, author: found.author, visibility: chosen, scheduled: stored.isScheduled)
            }
            let new = entry(inserted, created: created, now: now)
            if let idempotency {
                try Self.record(idempotency, userID: userID, resource: .entry, id: new.id, session, now: now)
            }
            return Created(new)
        }
    }

    public func updateEntry(id: Int64, userID: Int64, changes: EntryChanges, precondition: EntryPrecondition?) throws(StoreError) -> Entry {
        try write(.entry(id)) { session in
            let stored = try Self.ownedEntry(session, entryID: id, userID: userID)
            try EntryPreconditionCheck.verify(precondition, entryID: id) { try Self.fetchEntry(session, id: id) }
            let now = now()
            let (becoming, created) = stored.applying(changes, now: now)
            try session.execute("""
                UPDATE entries SET title = coalesce($1, title), body = coalesce($2, body), visibility = $3, draft_visibility = $4,
                created = coalesce($5, created), updated = $6, scheduled_visibility = $8 WHERE entry_id = $7
                """, [
                    changes.title, changes.body, becoming.visibility.rawValue, becoming.draftVisibility?.rawValue, created.map(Self.wholeSeconds),
                    now, id, becoming.scheduledVisibility?.rawValue,
                ])
            if let tags = changes.tags { try Self.setTags(session, entryID: id, tags: tags, replacing: true) }
            if let body = changes.body { try Self.setMediaLinks(session, entryID: id, body: body, replacing: true) }
            try Self.touchDiary(
                session, id: stored.diaryID, now: now, publicly: stored.changeIsPublic(becoming: becoming.visibility),
                publicEntries: stored.publicCountChange(becoming: becoming.visibility)
            )
            guard let entry = try Self.fetchEntry(session, id: id) else {
                throw StoreError(.notFound, .entry(id))  // Unreachable: locked above, same transaction.
            }
            return entry
        }
    }

    public func deleteEntry(id: Int64, userID: Int64, precondition: EntryPrecondition?) throws(StoreError) {
        try write(.entry(id)) { session in
            let stored = try Self.ownedEntry(session, entryID: id, userID: userID)
            try EntryPreconditionCheck.verify(precondition, entryID: id) { try Self.fetchEntry(session, id: id) }
            try session.execute("DELETE FROM entries WHERE entry_id = $1", [id])
            try Self.touchDiary(
                session, id: stored.diaryID, now: now(), publicly: stored.changeIsPublic(becoming: nil), entries: -1,
                publicEntries: stored.publicCountChangeOnDelete
            )
        }
    }
}

// MARK: - Rows

extension PostgresDiaryStore {
    /// An entry's columns with its author (the name of its diary's owner) and its tags.
    static let entrySelectList = "SELECT \(entryColumnList)"

    /// The columns of `entrySelectList`, for a statement that selects others before them.
    static let entryColumnList = """
        e.entry_id, e.diary_id, u.name, e.title, e.body, e.created, e.updated,
        ARRAY(SELECT t.tag FROM entry_tags t WHERE t.entry_id = e.entry_id), e.visibility, e.draft_visibility,
        e.scheduled_visibility
        """

    /// What joins an entry `e` to its diary `d` and author `u`.
    static let entryJoins = "JOIN diaries d ON d.diary_id = e.diary_id JOIN users u ON u.user_id = d.user_id"

    /// An entry with its author and tags.
    static let entryColumns = "\(entrySelectList) FROM entries e \(entryJoins)"

    static func entry(from row: SQLRow) throws -> Entry {
        let (id, diaryID, author, title, body, created, updated, tags, visibility, draftVisibility, scheduledVisibility) = try row.decode(
            (Int64, Int64, String, String, String, Date, Date, [String], String, String?, String?).self
        )
        let stored = try EntryDraft.Stored(
            storedVisibility: visibility, draftVisibility: draftVisibility, scheduledVisibility: scheduledVisibility
        )
        return Entry(
            id: id, diaryID: diaryID, author: author, title: title, body: body, created: created, updated: updated,
            // Sorted here, as SQLite's store does, rather than by the database's collation.
            tags: tags.sorted(), visibility: stored.visibility
        ).shown(stored)
    }

    static func fetchEntry(_ session: SQLSession, id: Int64) throws -> Entry? {
        try session.query("\(entryColumns) WHERE e.entry_id = $1", [id]).first.map(entry(from:))
    }

    /// Writes an entry's tags, replacing the ones it had when `replacing`.
    static func setTags(_ session: SQLSession, entryID: Int64, tags: [String], replacing: Bool) throws {
        if replacing {
            try session.execute("DELETE FROM entry_tags WHERE entry_id = $1", [entryID])
        }
        guard !tags.isEmpty else { return }
        // With the copies of the entry's date, visibility and diary that a tag's row carries (schema v12).
        try session.execute("""
            INSERT INTO entry_tags (entry_id, tag, created, visibility, diary_id)
            SELECT e.entry_id, t.tag, e.created, e.visibility, e.diary_id FROM entries e, unnest($2::text[]) AS t (tag)
            WHERE e.entry_id = $1 ON CONFLICT DO NOTHING
            """, [entryID, tags])
    }

    /// What `insertEntrySQL` wrote: the entry's id, its diary, author and visibility (for a
    /// draft or a scheduled entry, the one it takes once published), and whether it is scheduled.
    struct InsertedEntry {
        var id: Int64
        var diaryID: Int64
        var author: String
        var visibility: Visibility
        var scheduled: Bool
    }

    /// Sends, without waiting, one statement that writes a new entry: the entry inserted with
    /// its tags, and added to its diary's row of `diary_activity` for the session's slot (counts,
    /// `updated`, and `public_updated` when the entry is public; see `touchDiary`). The diary is
    /// `diaryID` when `userID` owns it, or when nil the user's first diary; the visibility
    /// `visibility` or the diary's default. When there is no such diary of the user's, nothing
    /// is written (and `write` leaves the data version alone: see `moveDataVersionSQL`).
    ///
    /// Sent with BEGIN, the data version's UPDATE and COMMIT, the post's worker thread waits
    /// once (and once for the token), and no lock the post takes is held while that thread
    /// wakes up to send the next statement (postgres-nio's event loop sends them in turn).
    static func insertEntry(
        _ session: SQLSession, userID: Int64, diaryID: Int64?, title: String, body: String, tags: [String], created: Date,
        visibility: Visibility?, draft: Bool, now: Date
    ) throws -> SQLSession.Answer {
        let linked = MediaLinks.ids(in: body).map(\.text)
        let scheduled = !draft && EntrySchedule.isAhead(created, of: now)
        return try session.send(
            insertEntrySQL, [userID, diaryID, visibility?.rawValue, now, title, body, created, session.slot, tags, draft, linked, scheduled]
        )
    }

    /// The entry `insertEntry` wrote, or nil when it found no diary; waits for it on `session`
    /// when given, whose transaction goes on (else it must have been waited for: its
    /// transaction committed).
    static func insertedEntry(_ answer: SQLSession.Answer, waitingOn session: SQLSession? = nil) throws -> InsertedEntry? {
        try session?.wait(answer)
        guard let row = answer.rows?.first else { return nil }
        let (id, diaryID, author, text, scheduled) = try row.decode((Int64, Int64, String, String, Bool).self)
        return InsertedEntry(
            id: id, diaryID: diaryID, author: author, visibility: try Visibility(stored: text, column: "entries.visibility"), scheduled: scheduled
        )
    }

    /// `insertEntry`'s statement: $1 the user, $2 the diary (NULL: the user's first), $3 the
    /// visibility (NULL: the diary's default), $4 now, $5 the title, $6 the body, $7 created,
    /// $8 the slot, $9 the tags, $10 whether it is a draft (stored private, its visibility in
    /// `draft_visibility`: `EntryDraft`), $11 the ids of the images the body links to
    /// (`MediaLinks`), $12 whether it is scheduled (not a draft, and dated ahead: stored private,
    /// its visibility in `scheduled_visibility`: `EntrySchedule`). No row, and nothing written,
    /// when there is no such diary.
    static let insertEntrySQL = PreparedSQL("""
        WITH target AS (
            SELECT diary_id, coalesce($3::text, default_visibility) AS chosen FROM diaries
            WHERE diary_id = coalesce($2::bigint, (SELECT diary_id FROM diaries WHERE user_id = $1::bigint ORDER BY diary_id LIMIT 1))
            AND user_id = $1::bigint
        ), entry AS (
            INSERT INTO entries (diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
            SELECT diary_id, $5::text, $6::text, $7::timestamptz, $4::timestamptz,
                CASE WHEN $10::boolean OR $12::boolean THEN 'private' ELSE chosen END, CASE WHEN $10::boolean THEN chosen END,
                CASE WHEN $12::boolean THEN chosen END FROM target
            RETURNING entry_id, diary_id, visibility, draft_visibility, scheduled_visibility, created
        ), tags AS (
            INSERT INTO entry_tags (entry_id, tag, created, visibility, diary_id)
            SELECT e.entry_id, t.tag, e.created, e.visibility, e.diary_id FROM entry e, unnest($9::text[]) AS t (tag)
            ON CONFLICT DO NOTHING
        ), media AS (
            INSERT INTO entry_media (entry_id, media_id) SELECT e.entry_id, m.id FROM entry e, unnest($11::text[]) AS m (id)
            ON CONFLICT DO NOTHING
        ), activity AS (
            INSERT INTO diary_activity AS a (diary_id, slot, entry_count, public_count, updated, public_updated)
            SELECT e.diary_id, $8::smallint, 1, (e.visibility = 'public')::integer, $4::timestamptz,
                CASE WHEN e.visibility = 'public' THEN $4::timestamptz END
            FROM entry e
            ON CONFLICT (diary_id, slot) DO UPDATE SET \(addActivity)
            RETURNING a.diary_id
        )
        SELECT e.entry_id, e.diary_id, u.name, coalesce(e.draft_visibility, e.scheduled_visibility, e.visibility),
        e.scheduled_visibility IS NOT NULL FROM entry e JOIN activity x ON x.diary_id = e.diary_id
        JOIN users u ON u.user_id = $1::bigint
        """)

    /// The diary an entry of `userID` goes to, with the user's name and the diary's default
    /// visibility: `diaryID` when it is theirs, or when nil their first diary, created when they have none.
    static func diaryForNewEntry(
        _ session: SQLSession, userID: Int64, diaryID: Int64?, now: Date
    ) throws -> (id: Int64, author: String, defaultVisibility: Visibility) {
        if let diaryID {
            let owner = try EntryAccess.ownedDiary(diaryID, stored: diaryOwner(session, diaryID: diaryID), userID: userID) { $0.id }
            return (diaryID, owner.name, owner.defaultVisibility)
        }
        func firstDiary() throws -> (Int64, String)? {
            try session.one((Int64, String).self, """
                SELECT diary_id, default_visibility FROM diaries WHERE user_id = $1 ORDER BY diary_id LIMIT 1
                """, [userID])
        }
        // The user's row is locked only when they have no diary, so that two first entries
        // written at once make one first diary, not two.
        guard let name = try userName(session, id: userID) else {
            throw StoreError(.notFound, .user(userID))
        }
        if let (id, text) = try firstDiary() {
            return (id, name, try Visibility(stored: text, column: "diaries.default_visibility"))
        }
        try session.execute("SELECT 1 FROM users WHERE user_id = $1 FOR UPDATE", [userID])
        if let (id, text) = try firstDiary() {
            return (id, name, try Visibility(stored: text, column: "diaries.default_visibility"))
        }
        return (try insertDiary(session, ownerID: userID, title: Diary.firstTitle(of: name), defaultVisibility: .public, now: now), name, .public)
    }

    /// The entry's diary and visibility when `userID` owns it (`EntryAccess.ownedEntry`: else
    /// `.forbidden`, or `.notFound` for a private one or no such entry). Locks the entry's row
    /// for the rest of the transaction: a concurrent update or delete of it waits, then sees
    /// this one's result.
    static func ownedEntry(_ session: SQLSession, entryID: Int64, userID: Int64) throws -> OwnedEntry {
        let stored = try session.one((Int64, Int64, String, String?, String?, Date).self, """
            SELECT e.diary_id, d.user_id, e.visibility, e.draft_visibility, e.scheduled_visibility, e.created
            FROM entries e JOIN diaries d ON d.diary_id = e.diary_id WHERE e.entry_id = $1 FOR UPDATE OF e
            """, [entryID]).map { diaryID, ownerID, text, draftText, scheduledText, created in
            let columns = try EntryDraft.Stored(storedVisibility: text, draftVisibility: draftText, scheduledVisibility: scheduledText)
            return StoredEntryOwner(diaryID: diaryID, ownerID: ownerID, columns: columns, created: created)
        }
        return try EntryAccess.ownedEntry(entryID, stored: stored, userID: userID)
    }
}
