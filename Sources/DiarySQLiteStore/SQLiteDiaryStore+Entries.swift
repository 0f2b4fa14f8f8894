import DiaryAPI
import DiaryStore
import Foundation
import GRDB
import StoreKernel

extension SQLiteDiaryStore {
    public func entry(id: Int64, viewerID: Int64?) throws(StoreError) -> Entry? {
        try read(.entry(id)) { db in
            guard let entry = try Self.fetchEntry(db, id: id) else { return nil }
            // Only a private entry (or a draft or scheduled entry, stored as one) needs its owner
            // looked up: the others are anyone's to read.
            guard entry.visibility == .private || entry.isWaiting else { return entry }
            guard let owner = try Self.diaryOwner(db, diaryID: entry.diaryID) else { return nil }
            return EntryAccess.mayRead(entry, ownerID: owner.id, viewerID: viewerID) ? entry : nil
        }
    }

    public func lastModified(diaryID: Int64?, viewerID: Int64?) throws(StoreError) -> Date? {
        try read(diaryID.map { .diary($0) } ?? .operation("diaries")) { db in
            let seen = EntryAccess.seen("updated", else: "public_updated", viewer: "?")
            let text: String?
            if let diaryID {
                let statement = try db.cachedStatement(sql: "SELECT \(seen) FROM diaries WHERE diary_id = ?")
                text = try String.fetchOne(statement, arguments: [viewerID, diaryID])
            } else {
                text = try String.fetchOne(db.cachedStatement(sql: "SELECT max(\(seen)) FROM diaries"), arguments: [viewerID])
            }
            return try text.map { try Self.date($0, column: "diaries.updated") }
        }
    }

    public func createEntry(
        userID: Int64, diaryID: Int64?, title: String, body: String, tags: [String], created: Date?, visibility: Visibility?,
        draft: Bool, idempotency: IdempotencyKey?
    ) throws(StoreError) -> Created<Entry> {
        let subject = diaryID.map { "new entry in diary \($0)" } ?? "new entry of user \(userID)"
        return try write(.operation(subject)) { db in
            let now = now()
            if let idempotency, let earlier = try Self.resourceCreated(db, by: idempotency, userID: userID, resource: .entry, now: now.date) {
                guard let entry = try Self.fetchEntry(db, id: earlier) else {
                    throw StoreError(.notFound, .createdByKey(.entry(earlier)))
                }
                return Created(entry, replayed: true)
            }
            let diary = try Self.diaryForNewEntry(db, userID: userID, diaryID: diaryID, now: now.text)
            let visibility = visibility ?? diary.defaultVisibility
            let created = created.map(Self.wholeSeconds) ?? now.date
            let stored = EntryDraft.Stored(visibility, draft: draft, created: created, now: now.date)
            try db.cachedStatement(sql: """
                INSERT INTO entries (diary_id, title, body, created, updated, visibility, draft_visibility, scheduled_visibility)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    diary.id, title, body, RFC3339.string(from: created), now.text, stored.visibility.rawValue, stored.draftVisibility?.rawValue,
                    stored.scheduledVisibility?.rawValue,
                ])
            let id = db.lastInsertedRowID
            try Self.setTags(db, entryID: id, tags: tags, replacing: false)
            try Self.setMediaLinks(db, entryID: id, body: body, replacing: false)
            try Self.touchDiary(db, id: diary.id, now: now.text, publicly: stored.visibility == .public)
            if let idempotency {
                try Self.record(idempotency, userID: userID, resource: .entry, id: id, db, now: now.text)
            }
            return Created(Entry(
                id: id, diaryID: diary.id, author: diary.author, title: title, body: body, created: created, updated: now.date,
                tags: tags.sorted(), visibility: visibility, draft: draft, scheduled: stored.isScheduled
            ))
        }
    }

    public func updateEntry(id: Int64, userID: Int64, changes: EntryChanges, precondition: EntryPrecondition?) throws(StoreError) -> Entry {
        try write(.entry(id)) { db in
            let stored = try Self.ownedEntry(db, entryID: id, userID: userID)
            try EntryPreconditionCheck.verify(precondition, entryID: id) { try Self.fetchEntry(db, id: id) }
            let now = now()
            let (becoming, created) = stored.applying(changes, now: now.date)
            try db.cachedStatement(sql: """
                UPDATE entries SET title = coalesce(?, title), body = coalesce(?, body), visibility = ?, draft_visibility = ?,
                scheduled_visibility = ?, created = coalesce(?, created), updated = ? WHERE entry_id = ?
                """).execute(arguments: [
                    changes.title, changes.body, becoming.visibility.rawValue, becoming.draftVisibility?.rawValue,
                    becoming.scheduledVisibility?.rawValue, created.map { RFC3339.string(from: Self.wholeSeconds($0)) }, now.text, id,
                ])
            if let tags = changes.tags { try Self.setTags(db, entryID: id, tags: tags, replacing: true) }
            if let body = changes.body { try Self.setMediaLinks(db, entryID: id, body: body, replacing: true) }
            try Self.touchDiary(db, id: stored.diaryID, now: now.text, publicly: stored.changeIsPublic(becoming: becoming.visibility))
            guard let entry = try Self.fetchEntry(db, id: id) else {
                throw StoreError(.notFound, .entry(id))  // Unreachable: checked above, same transaction.
            }
            return entry
        }
    }

    public func deleteEntry(id: Int64, userID: Int64, precondition: EntryPrecondition?) throws(StoreError) {
        try write(.entry(id)) { db in
            let stored = try Self.ownedEntry(db, entryID: id, userID: userID)
            try EntryPreconditionCheck.verify(precondition, entryID: id) { try Self.fetchEntry(db, id: id) }
            try db.cachedStatement(sql: "DELETE FROM entries WHERE entry_id = ?").execute(arguments: [id])
            try Self.touchDiary(db, id: stored.diaryID, now: now().text, publicly: stored.changeIsPublic(becoming: nil))
        }
    }
}

// MARK: - Rows

extension SQLiteDiaryStore {
    /// An entry's columns with its author (the name of its diary's owner) and its tags.
    static let entrySelectList = """
        SELECT e.entry_id, e.diary_id, u.name, e.title, e.body, e.created, e.updated,
        (SELECT group_concat(t.tag, ',') FROM entry_tags t WHERE t.entry_id = e.entry_id), e.visibility, e.draft_visibility,
        e.scheduled_visibility
        """

    /// What joins an entry `e` to its author.
    static let entryJoins = "JOIN diaries d ON d.diary_id = e.diary_id JOIN users u ON u.user_id = d.user_id"

    /// An entry with its author and tags.
    static let entryColumns = "\(entrySelectList) FROM entries e \(entryJoins)"

    /// The API's order, which the indexes `entries_newest_first` and
    /// `entries_by_diary_newest_first` already have: no sort at query time.
    static let newestFirst = "ORDER BY e.created DESC, e.entry_id DESC LIMIT ? OFFSET ?"

    static func entry(from row: Row) throws -> Entry {
        let stored = try EntryDraft.Stored(
            storedVisibility: row.decode(atIndex: 8), draftVisibility: row[9] as String?, scheduledVisibility: row[10] as String?
        )
        return try Entry(
            id: row.decode(atIndex: 0),
            diaryID: row.decode(atIndex: 1),
            author: row.decode(atIndex: 2),
            title: row.decode(atIndex: 3),
            body: row.decode(atIndex: 4),
            created: date(row.decode(atIndex: 5), column: "entries.created"),
            updated: date(row.decode(atIndex: 6), column: "entries.updated"),
            // Tags hold no commas (the API refuses them), so the list splits back exactly.
            // (Split by scalars: a comma followed by an emoji modifier is one Character.)
            tags: (row[7] as String?).map { $0.unicodeScalars.split(separator: ",").map { String($0) }.sorted() } ?? [],
            visibility: stored.visibility
        ).shown(stored)
    }

    /// A date as the store keeps it: whole seconds.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    /// Writes an entry's tags, replacing the ones it had when `replacing`.
    static func setTags(_ db: Database, entryID: Int64, tags: [String], replacing: Bool) throws {
        if replacing {
            try db.cachedStatement(sql: "DELETE FROM entry_tags WHERE entry_id = ?").execute(arguments: [entryID])
        }
        let insert = try db.cachedStatement(sql: insertTagSQL)
        for tag in tags {
            try insert.execute(arguments: [entryID, tag])
        }
    }

    /// Gives entry `?1` the tag `?2` (none if it has it), with the copies of the entry's date,
    /// visibility and diary that a tag's row carries (schema v9); the entry must be written.
    static let insertTagSQL = """
        INSERT OR IGNORE INTO entry_tags (entry_id, tag, created, visibility, diary_id)
        SELECT entry_id, ?2, created, visibility, diary_id FROM entries WHERE entry_id = ?1
        """

    static func fetchEntry(_ db: Database, id: Int64) throws -> Entry? {
        let statement = try db.cachedStatement(sql: "\(entryColumns) WHERE e.entry_id = ?")
        // Decoded from the statement's row, which fetchOne would copy first.
        return try Row.fetchCursor(statement, arguments: [id]).map(entry(from:)).next()
    }

    /// The diary an entry of `userID` goes to, with the user's name and the diary's default
    /// visibility: `diaryID` when it is theirs, or when nil their first diary, created when they have none.
    static func diaryForNewEntry(
        _ db: Database, userID: Int64, diaryID: Int64?, now: String
    ) throws -> (id: Int64, author: String, defaultVisibility: Visibility) {
        if let diaryID {
            let owner = try EntryAccess.ownedDiary(diaryID, stored: diaryOwner(db, diaryID: diaryID), userID: userID) { $0.id }
            return (diaryID, owner.name, owner.defaultVisibility)
        }
        guard let name = try userName(db, id: userID) else {
            throw StoreError(.notFound, .user(userID))
        }
        let first = try db.cachedStatement(sql: "SELECT min(diary_id) FROM diaries WHERE user_id = ?")
        if let id = try Int64.fetchOne(first, arguments: [userID]), let diary = try diaryOwner(db, diaryID: id) {
            return (id, name, diary.defaultVisibility)
        }
        return (try insertDiary(db, ownerID: userID, title: Diary.firstTitle(of: name), defaultVisibility: .public, now: now), name, .public)
    }

    /// The entry's diary and visibility when `userID` owns it (`EntryAccess.ownedEntry`: else
    /// `.forbidden`, or `.notFound` for a private one or no such entry).
    static func ownedEntry(_ db: Database, entryID: Int64, userID: Int64) throws -> OwnedEntry {
        let statement = try db.cachedStatement(sql: """
            SELECT e.diary_id, d.user_id, e.visibility, e.draft_visibility, e.scheduled_visibility, e.created
            FROM entries e JOIN diaries d ON d.diary_id = e.diary_id WHERE e.entry_id = ?
            """)
        let stored = try Row.fetchOne(statement, arguments: [entryID]).map { row in
            let columns = try EntryDraft.Stored(
                storedVisibility: row.decode(atIndex: 2), draftVisibility: row[3] as String?, scheduledVisibility: row[4] as String?
            )
            return try StoredEntryOwner(
                diaryID: row.decode(atIndex: 0), ownerID: row.decode(atIndex: 1), columns: columns,
                created: date(row.decode(atIndex: 5), column: "entries.created")
            )
        }
        return try EntryAccess.ownedEntry(entryID, stored: stored, userID: userID)
    }
}
