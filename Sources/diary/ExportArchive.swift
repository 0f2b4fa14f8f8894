import DiaryAPI
import DiaryClient
import Foundation
import ZIPFoundation

/// `diary export --format archive`: a zip holding `entries.ndjson` (the server's NDJSON export,
/// byte for byte, deflated) and `media/<id>.<ext>` (each image as served, stored: JPEG and PNG
/// are compressed already).
///
/// Zip rather than tar: every system opens one without tools, and ZIPFoundation (a maintained
/// package) writes each member from a provider and reads each through a consumer, so neither
/// side holds more than one image at once.
enum ExportArchive {
    static let entriesPath = "entries.ndjson"

    /// Writes the archive to `url`, through a partial file renamed at the end: an export
    /// stopped half-way leaves no archive that looks whole. Returns the number of entries and images.
    static func write(to url: URL, client: DiaryClient) async throws -> (entries: Int, images: Int) {
        let ndjson = try await client.sendRaw(ExportEntries(format: .ndjson)).body
        let bodies = try ExportFile.entries(in: ndjson).map(\.body)
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        try? FileManager.default.removeItem(at: partial)
        let archive: Archive
        do {
            archive = try Archive(url: partial, accessMode: .create)
        } catch {
            throw CommandFailure("cannot write \(partial.path): \(error)")
        }
        try add(ndjson, as: entriesPath, to: archive, compressed: true)
        let ids = try await ExportImages.ids(linkedFrom: bodies, client: client, includingUnlinked: true)
        let written = try await ExportImages.fetch(ids, client: client) { path, bytes in
            try add(bytes, as: path, to: archive, compressed: false)
        }
        do {
            if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            try FileManager.default.moveItem(at: partial, to: url)
        } catch {
            throw CommandFailure("cannot write \(url.path): \(error.localizedDescription)")
        }
        return (bodies.count, written.count)
    }

    private static func add(_ data: Data, as path: String, to archive: Archive, compressed: Bool) throws {
        do {
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(data.count),
                compressionMethod: compressed ? .deflate : .none
            ) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        } catch {
            throw CommandFailure("cannot add \(path) to the archive: \(error)")
        }
    }

    // MARK: - Reading

    /// Whether the file at `url` starts as a zip does (`PK\3\4`).
    static func isArchive(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x50, 0x4B, 0x03, 0x04])
    }

    /// Opens an archive `diary export --format archive` wrote.
    static func open(_ url: URL) throws -> Archive {
        do {
            return try Archive(url: url, accessMode: .read)
        } catch {
            throw CommandFailure("\(url.path) is not a readable zip archive: \(error)")
        }
    }

    /// The bytes of one member.
    static func contents(of entry: ZIPFoundation.Entry, in archive: Archive) throws -> Data {
        var data = Data()
        do {
            _ = try archive.extract(entry) { data.append($0) }
        } catch {
            throw CommandFailure("cannot read \(entry.path) in the archive: \(error)")
        }
        return data
    }
}
