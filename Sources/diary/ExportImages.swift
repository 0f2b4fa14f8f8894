import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation

/// The images an export carries: those its entries link to, then the caller's own uploads
/// that no entry links to. Each is fetched as the server serves it (`GET /media/<id>`), so an
/// export holds exactly what the caller may see: another user's private image answers 404
/// and is left out, its link left as it was.
///
/// Fetched and handed on one at a time: an export's memory is one image, however many it has.
enum ExportImages {
    /// The file extension kept images are written with, by their type.
    static let extensions = ["image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif"]

    /// `media/<id>.<ext>`: where an image lies in an archive, and beside Markdown files.
    static func path(of id: MediaID, contentType: String?) -> String {
        let type = contentType.map { String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased() }
        return "media/\(id.text).\(type.flatMap { extensions[$0] } ?? "img")"
    }

    /// The id of an image from its path in an archive (`media/<id>.<ext>`), nil for any other path.
    static func id(inPath path: String) -> MediaID? {
        guard path.hasPrefix("media/") else { return nil }
        let name = path.dropFirst("media/".count)
        return MediaID(name.prefix { $0 != "." })
    }

    /// The images to export, each once: those the entries link to (`linked`, in order), then
    /// (with a token) the caller's own uploads none of them links to, newest first.
    static func ids(_ linked: LinkedImages, client: DiaryClient, includingUnlinked: Bool) async throws -> [MediaID] {
        var linked = linked
        guard includingUnlinked, client.hasToken else { return linked.ids }
        for item in try await ownUploads(client: client) {
            if let id = MediaID(item.id) { linked.add(id) }
        }
        return linked.ids
    }

    /// Every image of the caller, with the ids of the entries linking to it.
    static func ownUploads(client: DiaryClient) async throws -> [MediaItem] {
        var items: [MediaItem] = []
        var page: Int? = 1
        while let number = page {
            let listed = try await client.send(ListMedia(page: PageRequest(page: number, perPage: PageRequest.maxPerPage)))
            items += listed.media
            page = listed.nextPage
        }
        return items
    }

    /// Fetches each of `ids` in turn and hands its path and bytes to `keep`; the paths of those
    /// kept, by id. An image the caller may not see is skipped.
    static func fetch(
        _ ids: [MediaID], client: DiaryClient, keep: (_ path: String, _ bytes: Data) throws -> Void
    ) async throws -> [MediaID: String] {
        var paths: [MediaID: String] = [:]
        var progress = ProgressBar(total: ids.count, label: "images")
        for (index, id) in ids.enumerated() {
            if let answer = try await client.image(id) {
                let path = path(of: id, contentType: answer.header("Content-Type"))
                try keep(path, answer.body)
                paths[id] = path
            }
            progress.update(index + 1)
        }
        progress.finish()
        return paths
    }
}

/// The images entries link to, each once, in the order first linked: gathered entry by entry
/// as an export is read, so that only the ids are held, never the entries.
struct LinkedImages {
    private(set) var ids: [MediaID] = []
    private var seen = Set<MediaID>()

    mutating func add(linksIn body: String) {
        for id in MediaLinks.ids(in: body) { add(id) }
    }

    mutating func add(_ id: MediaID) {
        if seen.insert(id).inserted { ids.append(id) }
    }
}
