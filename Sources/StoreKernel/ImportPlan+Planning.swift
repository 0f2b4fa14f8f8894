import DiaryAPI
import DiaryStore
import Foundation

extension ImportPlan {
    /// The plan for `imported` (in any order: planned by id), for the user `userID` named
    /// `userName`, from what the engine looked up in the import's transaction (`lookedUp`) and
    /// the largest entry id ever given out. A new id is the next after the largest, as both
    /// engines' counters give them.
    public init(
        _ imported: [ImportedEntry], userID: Int64, userName: String, lookedUp: LookedUp, largestID: Int64, now: Date
    ) throws(StoreError) {
        var entryOwners = lookedUp.entryOwners, diaryOwners = lookedUp.diaryOwners, largestID = largestID
        var additions: [Int64: DiaryAdditions] = [:]
        for item in Self.sorted(imported) {
            var entry = item.entry
            guard entry.author == userName else {
                throw StoreError(.forbidden, .entryByAuthor(entry.id, author: entry.author))
            }
            if entryOwners[entry.id] == userID {
                skipped += 1  // Already one of the caller's: read in before.
                continue
            }
            var newDiary: NewDiary?
            let defaultVisibility: Visibility
            if let owner = diaryOwners[entry.diaryID] {
                guard owner.ownerID == userID else { throw StoreError(.forbidden, .diary(entry.diaryID)) }
                defaultVisibility = owner.defaultVisibility
            } else {
                defaultVisibility = .public
            }
            // An entry dated ahead is scheduled, as on every write path.
            let stored = EntryDraft.Stored(item.visibility?.value ?? defaultVisibility, draft: entry.draft, created: entry.created, now: now)
            if diaryOwners[entry.diaryID] == nil {
                // A diary made for it is public from the entry's date only if the entry is public now.
                let since = stored.visibility == .public ? entry.created : now
                newDiary = NewDiary(title: Diary.firstTitle(of: userName), since: since)
                diaryOwners[entry.diaryID] = DiaryOwner(ownerID: userID, defaultVisibility: .public)
            }
            let keepsID = entry.id > largestID
            if !keepsID { entry.id = largestID + 1 }
            largestID = entry.id
            entryOwners[entry.id] = userID
            inserts.append(Insert(
                entry: entry, visibility: stored.visibility, draftVisibility: stored.draftVisibility, scheduledVisibility: stored.scheduledVisibility,
                keepsID: keepsID, newDiary: newDiary
            ))
            additions[entry.diaryID, default: DiaryAdditions(diaryID: entry.diaryID, entries: 0, publicEntries: 0)].add(stored.visibility)
        }
        touched = additions.values.sorted { $0.diaryID < $1.diaryID }
    }

    /// The entries in the order they are planned and written: by the id they were exported with.
    public static func sorted(_ imported: [ImportedEntry]) -> [ImportedEntry] {
        imported.sorted { $0.entry.id < $1.entry.id }
    }
}

extension ImportPlan {
    /// What an engine reads before it plans: the owner of each imported id that is an
    /// entry's, and the owner of each diary named that exists.
    public struct LookedUp: Sendable {
        public var entryOwners: [Int64: Int64]
        public var diaryOwners: [Int64: DiaryOwner]

        public init(entryOwners: [Int64: Int64] = [:], diaryOwners: [Int64: DiaryOwner] = [:]) {
            self.entryOwners = entryOwners
            self.diaryOwners = diaryOwners
        }

        /// Asks the engine once for each id and each diary `imported` names.
        public init(
            _ imported: [ImportedEntry], entryOwner: (Int64) throws -> Int64?, diaryOwner: (Int64) throws -> DiaryOwner?
        ) rethrows {
            self.init()
            for item in imported where entryOwners[item.entry.id] == nil {
                entryOwners[item.entry.id] = try entryOwner(item.entry.id)
            }
            for diaryID in Set(imported.map(\.entry.diaryID)) {
                diaryOwners[diaryID] = try diaryOwner(diaryID)
            }
        }
    }
}

extension ImportPlan.DiaryAdditions {
    mutating func add(_ visibility: Visibility) {
        entries += 1
        publicEntries += visibility == .public ? 1 : 0
    }
}
