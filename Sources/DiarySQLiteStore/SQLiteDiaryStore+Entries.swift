import DiaryAPI
import DiaryStore
import Foundation
import GRDB

extension SQLiteDiaryStore {
    public func entry(id: Int64) throws(StoreError) -> Entry? {
        try read(.entry(id)) { db in
            try Self.fetchEntry(db, id: id)
        }
    }

    public func lastModified(diaryID: Int64?) throws(StoreError) -> Date? {
        try read(diaryID.map { .diary($0) } ?? .operation("diaries")) { db in
            let text: String?
            if let diaryID {
                text = try String.fetchOne(db.cachedStatement(sql: "SELECT updated FROM diaries WHERE diary_id = ?"), arguments: [diaryID])
            } else {
                text = try String.fetchOne(db.cachedStatement(sql: "SELECT max(updated) FROM diaries"))
            }
            return try text.map { try Self.date($0, column: "diaries.updated") }
        }
    }

    public func createEntry(
        userID: Int64, diaryID: Int64?, title: String, body: String, tags: [String], created: Date?, idempotency: IdempotencyKey?
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
            let (diaryID, author) = try Self.diaryForNewEntry(db, userID: userID, diaryID: diaryID, now: now.text)
            let created = created.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) } ?? now.date
            try db.cachedStatement(sql: """
                INSERT INTO entries (diary_id, title, body, created, updated) VALUES (?, ?, ?, ?, ?)
                """).execute(arguments: [diaryID, title, body, RFC3339.string(from: created), now.text])
            let id = db.lastInsertedRowID
            try Self.setTags(db, entryID: id, tags: tags, replacing: false)
            try Self.touchDiary(db, id: diaryID, now: now.text)
            if let idempotency {
                try Self.record(idempotency, userID: userID, resource: .entry, id: id, db, now: now.text)
            }
            return Created(Entry(
                id: id, diaryID: diaryID, author: author, title: title, body: body, created: created, updated: now.date, tags: tags.sorted()
            ))
        }
    }

    public func updateEntry(
        id: Int64, userID: Int64, title: String?, body: String?, tags: [String]?, precondition: EntryPrecondition?
    ) throws(StoreError) -> Entry {
        try write(.entry(id)) { db in
            let diaryID = try Self.checkEntryOwner(db, entryID: id, userID: userID)
            try Self.check(precondition, entryID: id, db)
            let now = now()
            try db.cachedStatement(sql: """
                UPDATE entries SET title = coalesce(?, title), body = coalesce(?, body), updated = ? WHERE entry_id = ?
                """).execute(arguments: [title, body, now.text, id])
            if let tags { try Self.setTags(db, entryID: id, tags: tags, replacing: true) }
            try Self.touchDiary(db, id: diaryID, now: now.text)
            guard let entry = try Self.fetchEntry(db, id: id) else {
                throw StoreError(.notFound, .entry(id))  // Unreachable: checked above, same transaction.
            }
            return entry
        }
    }

    public func deleteEntry(id: Int64, userID: Int64, precondition: EntryPrecondition?) throws(StoreError) {
        try write(.entry(id)) { db in
            let diaryID = try Self.checkEntryOwner(db, entryID: id, userID: userID)
            try Self.check(precondition, entryID: id, db)
            try db.cachedStatement(sql: "DELETE FROM entries WHERE entry_id = ?").execute(arguments: [id])
            try Self.touchDiary(db, id: diaryID, now: now().text)
        }
    }
}

// MARK: - Rows

extension SQLiteDiaryStore {
    /// An entry's columns with its author (the name of its diary's owner) and its tags.
    static let entrySelectList = """
        SELECT e.entry_id, e.diary_id, u.name, e.title, e.body, e.created, e.updated,
        (SELECT group_concat(t.tag, ',') FROM entry_tags t WHERE t.entry_id = e.entry_id)
        """

    /// What joins an entry `e` to its author.
    static let entryJoins = "JOIN diaries d ON d.diary_id = e.diary_id JOIN users u ON u.user_id = d.user_id"

    /// An entry with its author and tags.
    static let entryColumns = "\(entrySelectList) FROM entries e \(entryJoins)"

    /// The API's order, which the indexes `entries_newest_first` and
    /// `entries_by_diary_newest_first` already have: no sort at query time.
    static let newestFirst = "ORDER BY e.created DESC, e.entry_id DESC LIMIT ? OFFSET ?"

    static func entry(from row: Row) throws -> Entry {
        try Entry(
            id: row.decode(atIndex: 0),
            diaryID: row.decode(atIndex: 1),
            author: row.decode(atIndex: 2),
            title: row.decode(atIndex: 3),
            body: row.decode(atIndex: 4),
            created: date(row.decode(atIndex: 5), column: "entries.created"),
            updated: date(row.decode(atIndex: 6), column: "entries.updated"),
            // Tags hold no commas (the API refuses them), so the list splits back exactly.
            // (Split by scalars: a comma followed by an emoji modifier is one Character.)
            tags: (row[7] as String?).map { $0.unicodeScalars.split(separator: ",").map { String($0) }.sorted() } ?? [])
    }

    /// Writes an entry's tags, replacing the ones it had when `replacing`.
    static func setTags(_ db: Database, entryID: Int64, tags: [String], replacing: Bool) throws {
        if replacing {
            try db.cachedStatement(sql: "DELETE FROM entry_tags WHERE entry_id = ?").execute(arguments: [entryID])
        }
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO entry_tags (entry_id, tag) VALUES (?, ?)")
        for tag in tags {
            try insert.execute(arguments: [entryID, tag])
        }
    }

    static func fetchEntry(_ db: Database, id: Int64) throws -> Entry? {
        let statement = try db.cachedStatement(sql: "\(entryColumns) WHERE e.entry_id = ?")
        // Decoded from the statement's row, which fetchOne would copy first.
        return try Row.fetchCursor(statement, arguments: [id]).map(entry(from:)).next()
    }

    /// The diary an entry of `userID` goes to, with the user's name: `diaryID` when it is theirs,
    /// or when nil their first diary, created when they have none.
    static func diaryForNewEntry(_ db: Database, userID: Int64, diaryID: Int64?, now: String) throws -> (id: Int64, author: String) {
        if let diaryID {
            guard let owner = try diaryOwner(db, diaryID: diaryID) else {
                throw StoreError(.notFound, .diary(diaryID))
            }
            guard owner.id == userID else {
                throw StoreError(.forbidden, .diary(diaryID))
            }
            return (diaryID, owner.name)
        }
        guard let name = try userName(db, id: userID) else {
            throw StoreError(.notFound, .user(userID))
        }
        let first = try db.cachedStatement(sql: "SELECT min(diary_id) FROM diaries WHERE user_id = ?")
        if let id = try Int64.fetchOne(first, arguments: [userID]) {
            return (id, name)
        }
        return (try insertDiary(db, ownerID: userID, title: firstDiaryTitle(of: name), now: now), name)
    }

    /// Throws `.preconditionFailed` unless `precondition` (if any) holds for the entry as stored.
    static func check(_ precondition: EntryPrecondition?, entryID: Int64, _ db: Database) throws {
        guard let precondition else { return }
        guard let entry = try fetchEntry(db, id: entryID), precondition(entry) else {
            throw StoreError(.preconditionFailed, .entry(entryID))
        }
    }

    /// The entry's diary when `userID` owns it; `.notFound` or `.forbidden` otherwise.
    static func checkEntryOwner(_ db: Database, entryID: Int64, userID: Int64) throws -> Int64 {
        let statement = try db.cachedStatement(sql: """
            SELECT e.diary_id, d.user_id FROM entries e JOIN diaries d ON d.diary_id = e.diary_id WHERE e.entry_id = ?
            """)
        guard let row = try Row.fetchOne(statement, arguments: [entryID]) else {
            throw StoreError(.notFound, .entry(entryID))
        }
        let (diaryID, ownerID): (Int64, Int64) = try (row.decode(atIndex: 0), row.decode(atIndex: 1))
        guard ownerID == userID else {
            throw StoreError(.forbidden, .entry(entryID))
        }
        return diaryID
    }
}
