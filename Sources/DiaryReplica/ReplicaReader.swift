import DiaryAPI
import DiarySQLiteStore
import DiaryStore
import Foundation

/// Reads a replica as its token's user reads the server (their own entries of every
/// visibility, everyone's public ones): through the store's own queries, so that lists,
/// filters and search (English and Japanese substrings) answer as the server's do.
public struct ReplicaReader: Sendable {
    public let replica: Replica
    /// When the last sync ended.
    public let syncedAt: Date
    let viewerID: Int64?

    /// Why a replica cannot be read: none was synced yet, or its file cannot be opened.
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens the replica at `location` for reading; never makes one.
    public init(_ location: ReplicaLocation) throws(Unavailable) {
        guard FileManager.default.fileExists(atPath: location.file.path) else {
            throw Unavailable(description: "no local copy of it to read yet (diary sync makes one while the server is up)")
        }
        let state: (cursor: String?, syncedAt: Date?, owner: String?, ownerID: Int64?)
        do {
            replica = try Replica(location)
            state = try replica.store.replicaState()
        } catch {
            throw Unavailable(description: "the local copy \(location.file.path) cannot be read (\(error)); run: diary sync --reset")
        }
        guard let synced = state.syncedAt else {
            replica.close()
            throw Unavailable(description: "its local copy was never synced (diary sync fills it while the server is up)")
        }
        syncedAt = synced
        viewerID = state.ownerID
    }

    public func entries(_ query: EntryQuery) throws(StoreError) -> EntryPage {
        try results(query).page
    }

    /// A page and the store's position after it, for paging on by keyset (`diary browse`).
    public func results(_ query: EntryQuery) throws(StoreError) -> EntryResults {
        var query = query
        query.viewerID = viewerID
        return try replica.store.entries(query)
    }

    public func entry(id: Int64) throws(StoreError) -> Entry? {
        try replica.store.entry(id: id, viewerID: viewerID)
    }

    /// How many entries the copy holds.
    public func entryCount() throws(StoreError) -> Int {
        try replica.store.replicaEntryCount()
    }

    /// `page` with " [not sent]" after the title of each entry whose change waits in the outbox.
    public func markingUnsent(_ page: EntryPage) throws(StoreError) -> EntryPage {
        let unsent = try replica.store.unsentEntryIDs()
        var page = page
        page.entries = page.entries.map { entry in
            var entry = entry
            if unsent.contains(entry.id) { entry.title += " [not sent]" }
            return entry
        }
        return page
    }

    public func tags() throws(StoreError) -> [TagCount] {
        try replica.store.tags(viewerID: viewerID)
    }

    public func close() {
        replica.close()
    }
}
