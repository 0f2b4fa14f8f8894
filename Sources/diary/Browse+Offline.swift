import DiaryAPI
import DiaryBrowser
import DiaryClient
import DiaryReplica
import DiaryStore
import DiaryTerminal
import Foundation
import Synchronization

/// `diary browse`'s pages: from the server, or from the replica (`diary sync`) when the server
/// is out of reach (or always, with `--offline`), as `list` and `search` fall back. The choice is
/// made at each first page (start, `r`, a new search) and kept while paging on, so that a cursor
/// is always read by the side that made it. `r` offline syncs first (pull to refresh); a sync
/// that fails is the status line's message.
final class FallbackEntrySource: EntrySource {
    private let client: DiaryClient
    private let location: ReplicaLocation
    private let style: DisplayStyle
    private let alwaysOffline: Bool
    /// `DIARY_OFFLINE=never`: the connection's error stays an error.
    private let fallbackAllowed: Bool
    private let state = Mutex(State())

    private struct State {
        /// The replica being read, or nil while the server answers.
        var replica: ReplicaReader?
        /// The store's positions behind the cursors handed to the browser (replica pages only).
        var positions: [String: EntryPosition] = [:]
    }

    init(client: DiaryClient, location: ReplicaLocation, style: DisplayStyle, alwaysOffline: Bool, fallbackAllowed: Bool) {
        self.client = client
        self.location = location
        self.style = style
        self.alwaysOffline = alwaysOffline
        self.fallbackAllowed = fallbackAllowed
    }

    deinit {
        state.withLock { $0.replica?.close() }
    }

    /// The server's address online; "offline · synced 2026-11-25 09:41 (3 hours ago)" on the replica.
    var name: String {
        guard let syncedAt = state.withLock({ $0.replica?.syncedAt }) else { return client.serverURL.absoluteString }
        return "offline · synced \(style.date(syncedAt)) (\(OfflineReading.age(Date().timeIntervalSince(syncedAt))))"
    }

    func page(of listing: Listing, after cursor: String?, count: Int) async throws(EntrySourceError) -> EntryPage {
        let server = ClientEntrySource(client: client)
        if cursor != nil {
            let offline = state.withLock { $0.replica != nil }
            return offline ? try replicaPage(listing, after: cursor, count: count) : try await server.page(of: listing, after: cursor, count: count)
        }
        if !alwaysOffline {
            do {
                let page = try await server.fetch(listing, after: nil, count: count)
                closeReplica()
                return page
            } catch let error as ConnectionError where fallbackAllowed {
                // The connection's own words first, as `list` says them: they name the server.
                try openReplica(unreachable: error)
            } catch {
                throw ClientEntrySource.sourceError(error)
            }
        } else {
            try openReplica(unreachable: nil)
        }
        return try replicaPage(listing, after: nil, count: count)
    }

    /// Online, the sizes the server gives of the page's images; offline, none: the replica
    /// keeps no images, and the lines show without sizes.
    func imageSizes(in entries: [Entry]) async -> [String: (width: Int, height: Int)] {
        guard !state.withLock({ $0.replica != nil }) else { return [:] }
        return await ClientEntrySource(client: client).imageSizes(in: entries)
    }

    /// Offline: sends the outbox and pulls the server's changes (through a connection of its
    /// own; the reload that follows reopens the replica, whose owner may be known only now).
    /// Online: nothing; the reload asks the server again.
    func refresh() async throws(EntrySourceError) {
        guard alwaysOffline || state.withLock({ $0.replica != nil }) else { return }
        do {
            let report = try await DiaryCommand.Sync.perform(client: client, location: location, reset: false, style: style)
            if let conflict = report.conflicts.first {
                throw EntrySourceError("synced; " + conflict + (report.conflicts.count > 1 ? " (and \(report.conflicts.count - 1) more)" : ""))
            }
        } catch let error as EntrySourceError {
            throw error
        } catch {
            throw EntrySourceError("sync failed: " + (ErrorReport.message(for: error) ?? String(describing: error)))
        }
    }

    /// A page read from the replica through the store's own queries; its cursor names the
    /// store's position after it (keyset: paging stays instant however deep).
    private func replicaPage(_ listing: Listing, after cursor: String?, count: Int) throws(EntrySourceError) -> EntryPage {
        do {
            return try state.withLock { state throws -> EntryPage in
                guard let replica = state.replica else { throw CommandFailure("the local copy is not open") }
                let filter = EntryFilter(query: listing.query, order: .newest, tags: listing.tag.map { [$0] } ?? [])
                let query = EntryQuery(
                    diaryID: listing.diaryID, page: PageRequest(perPage: count), filter: filter,
                    position: cursor.flatMap { state.positions[$0] }
                )
                let results = try replica.results(query)
                var page = try replica.markingUnsent(results.page)
                page.nextCursor = results.next.map { position in
                    let key = String(state.positions.count + 1)
                    state.positions[key] = position
                    return key
                }
                return page
            }
        } catch {
            throw EntrySourceError(ErrorReport.message(for: error) ?? String(describing: error))
        }
    }

    /// Opens the replica afresh (a sync may have written it since), or says why it cannot be
    /// read, after why the server could not be reached.
    private func openReplica(unreachable: ConnectionError?) throws(EntrySourceError) {
        let reader: ReplicaReader
        switch OfflineReading.openReader(location, unreachable: unreachable) {
        case .success(let opened): reader = opened
        case .failure(let failure): throw EntrySourceError(failure.description)
        }
        state.withLock { state in
            state.replica?.close()
            state.replica = reader
            state.positions = [:]
        }
    }

    private func closeReplica() {
        state.withLock { state in
            state.replica?.close()
            state.replica = nil
            state.positions = [:]
        }
    }
}
