import DiaryAPI
import DiaryClient
import DiaryReplica
import DiarySQLiteStore
import DiaryTerminal
import Foundation
import HTTPTypes

// MARK: - Writing offline

/// `add`, `edit` and `delete` when the server cannot be reached (or with `--offline`): the
/// change goes to the replica's outbox with an Idempotency-Key made now, shows in the replica
/// at once (`[not sent]`), and `diary sync` sends it first.
enum OfflineWriting {
    /// Whether a failed connection (or `--offline`) sends this write to the outbox.
    static func applies(_ globals: GlobalOptions, _ error: (any Error)?) -> Bool {
        if globals.offline { return true }
        return error is ConnectionError && OfflineReading.fallbackAllowed()
    }

    /// Queues `item`, with `local(reader)` the entry as it will read (nil: deleted); prints what was kept.
    static func queue(_ globals: GlobalOptions, _ item: OutboxItem, local: (ReplicaReader) throws -> Entry?) throws {
        let reader = try openReader(globals)
        defer { reader.close() }
        let id = try reader.replica.store.queue(item, local: try local(reader))
        Output.write("saved entry \(id) here, to send with diary sync [not sent]")
    }

    /// The replica opened for a write the server could not take, or one line saying nothing was written.
    static func openReader(_ globals: GlobalOptions) throws -> ReplicaReader {
        let location = try globals.replicaLocation()
        do {
            return try ReplicaReader(location)
        } catch {
            throw CommandFailure("cannot reach the server, and \(error.description): nothing was written")
        }
    }

    /// The JSON body of a request, as the outbox keeps it.
    static func encoded<T: Encodable>(_ body: T) throws -> String {
        String(decoding: try DiaryJSON.makeEncoder().encode(body), as: UTF8.self)
    }
}

// MARK: - Sending the outbox

/// Sends the outbox in order before a sync pulls: an add with its Idempotency-Key, an edit or a
/// delete with `If-Match` the tag of the entry it was based on. A change the server refuses as
/// stale (412) or whose entry is gone there (404) is a conflict: the server's version stays,
/// the local text becomes a new private entry `<title> (conflict, <local time>)`, and one line
/// names both ids. Any other failure stops the sync with the change still queued.
struct OutboxSender {
    let client: DiaryClient
    let replica: Replica
    let style: DisplayStyle

    /// The conflict lines, one per conflict.
    func send() async throws -> [String] {
        var tags: [Int64: String] = [:]
        var sentIDs: [Int64: Int64] = [:]
        var conflicted: Set<Int64> = []
        var lines: [String] = []
        for item in try replica.store.outbox() {
            let id = sentIDs[item.entryID] ?? item.entryID
            if conflicted.contains(id) {
                try replica.store.settle(item, sentID: nil)
                continue
            }
            let condition: HTTPFields = (item.baseTag ?? tags[id]).map { [.ifMatch: $0] } ?? [:]
            do {
                switch item.kind {
                case .add:
                    let body = try DiaryJSON.makeDecoder().decode(NewEntry.self, from: Data(item.request.utf8))
                    let sent = try await client.send(CreateEntry(body), headers: [.idempotencyKey: item.idempotencyKey])
                    tags[sent.id] = ResponseTag.of(sent)
                    sentIDs[item.entryID] = sent.id
                    try replica.store.settle(item, sentID: sent.id)
                case .edit:
                    let patch = try DiaryJSON.makeDecoder().decode(EntryPatch.self, from: Data(item.request.utf8))
                    let sent = try await client.send(UpdateEntry(entryID: id, patch), headers: condition)
                    tags[id] = ResponseTag.of(sent)
                    try replica.store.settle(item, sentID: nil)
                case .delete:
                    _ = try await client.send(DeleteEntry(entryID: id), headers: condition)
                    try replica.store.settle(item, sentID: nil)
                }
            } catch let error as APIError where error.status == 412 || (error.status == 404 && item.kind != .add) {
                conflicted.insert(id)
                if let line = try await conflict(item, id: id, gone: error.status == 404) { lines.append(line) }
                try replica.store.settle(item, sentID: nil)
            }
        }
        return lines
    }

    /// Keeps the local text of a refused change as a new private entry; the line saying so.
    private func conflict(_ item: OutboxItem, id: Int64, gone: Bool) async throws -> String? {
        guard item.kind == .edit else {
            // A delete of an entry changed there: the server's version stays, nothing is lost.
            return gone ? nil : "conflict: entry \(id) changed on the server after you deleted it here; it was kept there"
        }
        guard let local = try replica.store.entry(id: item.entryID, viewerID: try replica.store.replicaState().ownerID) else { return nil }
        let copy = NewEntry(
            title: "\(local.title) (conflict, \(style.date(item.written)))", body: local.body, diaryID: local.diaryID, tags: local.tags,
            created: local.created, visibility: .private
        )
        let kept = try await client.send(CreateEntry(copy), headers: [.idempotencyKey: item.idempotencyKey + "-conflict"])
        let why = gone ? "was deleted on the server" : "changed on the server"
        return "conflict: entry \(id) \(why); your text is kept as private entry \(kept.id)"
    }
}
