import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation
import ZIPFoundation

/// An archive `diary export --format archive` wrote, read back for `diary import`.
///
/// Its images are uploaded as any upload is (the server processes them again: an archive is
/// input like any other, and nothing enters the store without being made safe), so they get
/// new ids, and the entries' links are rewritten to those before the entries are imported.
/// Importing twice changes nothing: entries whose id exists are skipped by the server, and an
/// image every one of whose linking entries is already among the caller's is not uploaded
/// again. An image no entry links to is uploaded with an `Idempotency-Key` made from its
/// archived id, so a second import within the server's 24 hours of keys replays it.
struct ImportArchive {
    let archive: Archive
    let entries: [ImportedEntry]

    init(_ url: URL) throws {
        archive = try ExportArchive.open(url)
        guard let member = archive[ExportArchive.entriesPath] else {
            throw CommandFailure("\(url.path) holds no \(ExportArchive.entriesPath): not an archive `diary export` wrote")
        }
        entries = try ExportFile.entries(ImportedEntry.self, in: try ExportArchive.contents(of: member, in: archive))
    }

    /// Uploads, one at a time, the images some entry still needs; their new ids by archived id,
    /// and how many were left because their entries are there already.
    func uploadImages(client: DiaryClient) async throws -> (newIDs: [MediaID: MediaID], skipped: Int) {
        let alreadyLinking = Set(try await ExportImages.ownUploads(client: client).flatMap { $0.entryIDs ?? [] })
        var linking: [MediaID: [Int64]] = [:]
        for imported in entries {
            for id in MediaLinks.ids(in: imported.entry.body) { linking[id, default: []].append(imported.entry.id) }
        }
        let members = archive.compactMap { member in member.type == .file ? ExportImages.id(inPath: member.path).map { (member, $0) } : nil }
        var newIDs: [MediaID: MediaID] = [:]
        var skipped = 0
        var progress = ProgressBar(total: members.count, label: "images")
        for (index, (member, id)) in members.enumerated() {
            defer { progress.update(index + 1) }
            let users = linking[id] ?? []
            if !users.isEmpty && users.allSatisfy(alreadyLinking.contains) {
                skipped += 1
                continue
            }
            let bytes = try ExportArchive.contents(of: member, in: archive)
            let item = try await ImageAttachments.upload(bytes, named: member.path, key: "diary-import-\(id.text)", client: client)
            newIDs[id] = MediaID(item.id)
        }
        progress.finish()
        return (newIDs, skipped)
    }

    /// The archive's entries, their links to uploaded images pointing at the new ids.
    func entries(linkingTo newIDs: [MediaID: MediaID]) -> [ImportedEntry] {
        entries.map { imported in
            var relinked = imported
            relinked.entry.body = MediaLinks.replacing(in: imported.entry.body) { newIDs[$0]?.url }
            return relinked
        }
    }
}
