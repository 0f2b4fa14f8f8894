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
    /// stopped half-way leaves no archive that looks whole. The entries arrive in a file beside
    /// it first, read back a line at a time, so that the export's size never sits in memory.
    /// Returns the number of entries and images.
    static func write(to url: URL, client: DiaryClient) async throws -> (entries: Int, images: Int) {
        let folder = url.deletingLastPathComponent()
        let partial = folder.appendingPathComponent(".\(url.lastPathComponent).partial")
        let entries = folder.appendingPathComponent(".\(url.lastPathComponent).entries.partial")
        defer {
            try? FileManager.default.removeItem(at: entries)
            try? FileManager.default.removeItem(at: partial)
        }
        try await ExportDownload.write(.ndjson, to: entries, client: client)
        var linked = LinkedImages(), count = 0
        try ExportFile.forEachEntry(inNDJSON: entries) { entry in
            linked.add(linksIn: entry.body)
            count += 1
        }
        try? FileManager.default.removeItem(at: partial)
        let archive: Archive
        do {
            archive = try Archive(url: partial, accessMode: .create)
        } catch {
            throw CommandFailure("cannot write \(partial.path): \(error)")
        }
        try add(fileAt: entries, as: entriesPath, to: archive)
        let ids = try await ExportImages.ids(linked, client: client, includingUnlinked: true)
        let written = try await ExportImages.fetch(ids, client: client) { path, bytes in
            try add(bytes, as: path, to: archive, compressed: false)
        }
        try ExportDownload.replace(url, with: partial)
        return (count, written.count)
    }

    private static func add(_ data: Data, as path: String, to archive: Archive, compressed: Bool) throws {
        try add(path, size: data.count, to: archive, compressed: compressed) { position, size in
            data.subdata(in: position..<position + size)
        }
    }

    /// The file at `url` as the member `path`, deflated, read a piece at a time.
    private static func add(fileAt url: URL, as path: String, to archive: Archive) throws {
        guard let handle = try? FileHandle(forReadingFrom: url), let size = try? handle.seekToEnd() else {
            throw CommandFailure("cannot read \(url.path)")
        }
        defer { try? handle.close() }
        try add(path, size: Int(size), to: archive, compressed: true) { position, count in
            try handle.seek(toOffset: UInt64(position))
            return try handle.read(upToCount: count) ?? Data()
        }
    }

    private static func add(_ path: String, size: Int, to archive: Archive, compressed: Bool,
                            piece: @escaping (_ position: Int, _ count: Int) throws -> Data) throws {
        do {
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(size),
                compressionMethod: compressed ? .deflate : .none
            ) { position, count in
                try piece(Int(position), count)
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
