import DiaryAPI
import DiaryClient
import Foundation

/// The server's export (`GET /api/export`), written as it arrives: the server streams it, and
/// the CLI never holds it whole either, so exporting a million entries (1.2 GB of NDJSON) takes
/// the memory of one read, not of the diary.
enum ExportDownload {
    /// Writes the export in `format` to `url` through a partial file beside it, renamed at the
    /// end: an export cut off half-way leaves no file that looks whole.
    static func save(_ format: ExportFormat, to url: URL, client: DiaryClient) async throws {
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        defer { try? FileManager.default.removeItem(at: partial) }
        try await write(format, to: partial, client: client)
        try replace(url, with: partial)
    }

    /// Renames `partial` to `url`, replacing any file there in one step (rename(2)).
    static func replace(_ url: URL, with partial: URL) throws {
        guard rename(partial.path, url.path) == 0 else {
            throw CommandFailure("cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes the export in `format` to `url` (made anew), with no rename: for a file the caller
    /// removes, such as the entries an archive is made from.
    static func write(_ format: ExportFormat, to url: URL, client: DiaryClient) async throws {
        try? FileManager.default.removeItem(at: url)
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: url) else {
            throw CommandFailure("cannot write \(url.path)")
        }
        defer { try? handle.close() }
        _ = try await copy(format, to: handle, named: url.path, client: client)
    }

    /// Prints the export in `format` to standard output as it arrives, ending it with a line
    /// break when the server's bytes do not.
    static func print(_ format: ExportFormat, client: DiaryClient) async throws {
        let last = try await copy(format, to: .standardOutput, named: "standard output", client: client)
        if last != UInt8(ascii: "\n") { try FileHandle.standardOutput.write(contentsOf: Data([UInt8(ascii: "\n")])) }
    }

    /// Copies the export to `handle` as it arrives, gathered to a megabyte a write (the pieces
    /// are what each read of the socket held, about 13 KB); returns its last byte.
    private static func copy(_ format: ExportFormat, to handle: FileHandle, named name: String, client: DiaryClient) async throws -> UInt8? {
        var pending = Data()
        var last: UInt8?
        func flush() throws {
            do {
                try handle.write(contentsOf: pending)
            } catch {
                throw CommandFailure("cannot write \(name): \(error.localizedDescription)")
            }
            last = pending.last ?? last
            pending.removeAll(keepingCapacity: true)
        }
        _ = try await client.download(ExportEntries(format: format)) { bytes in
            pending.append(contentsOf: bytes)
            if pending.count >= 1 << 20 { try flush() }
        }
        try flush()
        return last
    }
}
