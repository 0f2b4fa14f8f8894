import AtomPub
import DiaryAPI
import DiaryStore
import Foundation

/// The store work behind AtomPub: a collection is one of the caller's own diaries, a member
/// one of its entries. Everything is read as the caller (`viewerID`), so their private
/// entries and drafts are theirs to read, and a diary or entry of someone else is no member
/// here (404 alike, so the answer tells nothing of a private one).
extension Handlers {
    /// Entries on a page of a collection.
    static let atomPageSize = 20

    /// The caller's own diaries: the collections of their AtomPub service document, and
    /// Micropub's destinations.
    func ownDiaries(of user: User) throws(Problem) -> [Diary] {
        try run { () throws(StoreError) in try store.diaries(viewerID: user.id) }.filter { $0.owner == user.name }
    }

    /// The caller's diary `id`: 404 when it does not exist, 403 when it is someone else's.
    func atomDiary(_ id: Int64, of user: User) throws(Problem) -> Diary {
        let diary = try found("diary \(id)") { () throws(StoreError) in try store.diary(id: id, viewerID: user.id) }
        guard diary.owner == user.name else {
            throw Problem(title: "Forbidden", status: 403, detail: "diary \(id) is not yours: AtomPub lists and writes your own diaries.")
        }
        return diary
    }

    /// A page of a collection, newest first, by the store's cursor (as the API pages), and
    /// when what it lists last changed.
    func atomCollectionPage(_ diary: Diary, cursor: String?, context: RequestContext) throws(Problem) -> Reply<EntryPage> {
        try entries(
            diaryID: diary.id, page: PageRequest(page: 1, perPage: Self.atomPageSize), filter: EntryFilter(cursor: cursor), context: context
        )
    }

    /// The caller's entry `entryID` in diary `diaryID`; 404 for anything else.
    func atomMember(diaryID: Int64, entryID: Int64, of user: User) throws(Problem) -> Entry {
        let entry = try found("entry \(entryID)") { () throws(StoreError) in try store.entry(id: entryID, viewerID: user.id) }
        guard entry.diaryID == diaryID, entry.author == user.name else { throw .notFound("entry \(entryID) does not exist") }
        return entry
    }

    /// A new entry in the caller's diary from an AtomPub entry: 201's entry.
    func atomCreate(diaryID: Int64, _ document: AtomEntryDocument, user: User) throws(Problem) -> Entry {
        let fields = try Self.atomFields(document)
        return try run { () throws(StoreError) in
            try store.createEntry(
                userID: user.id, diaryID: diaryID, title: fields.title, body: fields.body, tags: fields.tags, created: document.date,
                visibility: nil, draft: document.draft, idempotency: nil
            ).value
        }
    }

    /// PUT replaces what AtomPub carries: title, body, tags and draft; the date when one is given.
    func atomReplace(
        diaryID: Int64, entryID: Int64, _ document: AtomEntryDocument, user: User, precondition: EntryPrecondition?
    ) throws(Problem) -> Entry {
        let fields = try Self.atomFields(document)
        _ = try atomMember(diaryID: diaryID, entryID: entryID, of: user)
        let changes = EntryChanges(title: fields.title, body: fields.body, tags: fields.tags, created: document.date, draft: document.draft)
        return try run { () throws(StoreError) in
            try store.updateEntry(id: entryID, userID: user.id, changes: changes, precondition: precondition)
        }
    }

    func atomDelete(diaryID: Int64, entryID: Int64, user: User, precondition: EntryPrecondition?) throws(Problem) {
        _ = try atomMember(diaryID: diaryID, entryID: entryID, of: user)
        try run { () throws(StoreError) in try store.deleteEntry(id: entryID, userID: user.id, precondition: precondition) }
    }

    /// The document's title, body and tags under the rules the JSON API applies (422 otherwise).
    private static func atomFields(_ document: AtomEntryDocument) throws(Problem) -> (title: String, body: String, tags: [String]) {
        var errors: [FieldError] = []
        func valid<T>(_ result: Result<T, FieldError>) -> T? {
            switch result {
            case .success(let value): return value
            case .failure(let error): errors.append(error); return nil
            }
        }
        let title = valid(EntryRules.title(document.title, field: "title"))
        let body = valid(EntryRules.body(document.body, field: "content"))
        let tags = valid(TagRules.tags(document.tags, field: "category"))
        guard let title, let body, let tags else { throw .validation(ValidationFailure(errors)) }
        return (title, body, tags)
    }
}
