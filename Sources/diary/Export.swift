import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation

// MARK: - diary export

extension DiaryCommand {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write every entry, with all its fields, to a file or standard output.",
            discussion: """
                json and ndjson are what `diary import` reads back. archive writes a zip (--output, default: \
                diary-export.zip) holding entries.ndjson and media/ID.EXT, every image the entries link to \
                and your own uploads; `diary import` reads it back, images included. markdown writes one \
                file per entry (ENTRY_ID.md) into the --output directory (default: diary-export), each with \
                a front matter block: entry_id, diary_id, author, created, updated, tags and title; the \
                images they link to go to media/ beside them, their links made relative. An image you may \
                not see (another's private one) is never exported; its link stays as it was.
                """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, ndjson, markdown, archive
        }

        @OptionGroup var globals: GlobalOptions

        @Option(help: "json, ndjson, markdown or archive.")
        var format: Format = .ndjson

        @Option(help: ArgumentHelp("The file (a directory for markdown) to write; default: standard output.", valueName: "path"))
        var output: String?

        func run() async throws {
            let client = try globals.makeClient()
            switch format {
            case .json, .ndjson:
                let wire: ExportFormat = format == .json ? .json : .ndjson
                guard let output else {
                    try await ExportDownload.print(wire, client: client)
                    return
                }
                try await ExportDownload.save(wire, to: URL(fileURLWithPath: output), client: client)
                Output.write("exported to \(output)")
            case .archive:
                let url = URL(fileURLWithPath: output ?? "diary-export.zip")
                let written = try await ExportArchive.write(to: url, client: client)
                Output.write("exported \(DisplayFormat.count(written.entries, "entry", "entries")) and "
                    + "\(DisplayFormat.count(written.images, "image", "images")) to \(url.path)")
            case .markdown:
                try await writeMarkdown(client: client)
            }
        }

        /// One file per entry, the images they link to in `media/` beside them. The entries
        /// arrive in a file first and are read back a line at a time, twice (their images, then
        /// their files), so that the export's size never sits in memory.
        private func writeMarkdown(client: DiaryClient) async throws {
            let directory = URL(fileURLWithPath: output ?? "diary-export", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let entries = directory.appendingPathComponent(".entries.ndjson.partial")
            defer { try? FileManager.default.removeItem(at: entries) }
            try await ExportDownload.write(.ndjson, to: entries, client: client)
            var linked = LinkedImages(), count = 0
            try ExportFile.forEachEntry(inNDJSON: entries) { entry in
                linked.add(linksIn: entry.body)
                count += 1
            }
            let ids = try await ExportImages.ids(linked, client: client, includingUnlinked: false)
            let paths = try await ExportImages.fetch(ids, client: client) { path, bytes in
                let file = directory.appendingPathComponent(path)
                try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try write(bytes, to: file)
            }
            var progress = ProgressBar(total: count, label: "export"), written = 0
            try ExportFile.forEachEntry(inNDJSON: entries) { entry in
                var relinked = entry
                // Only site paths: `https://host/media/…` keeps pointing at its host.
                relinked.body = MediaLinks.replacing(in: entry.body, sitePathsOnly: true) { paths[$0] }
                try write(Data(DisplayFormat.markdown(relinked).utf8), to: directory.appendingPathComponent("\(entry.id).md"))
                written += 1
                progress.update(written)
            }
            progress.finish()
            Output.write("exported \(DisplayFormat.count(count, "entry", "entries")) and "
                + "\(DisplayFormat.count(paths.count, "image", "images")) to \(directory.path)")
        }

        private func write(_ data: Data, to url: URL) throws {
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw CommandFailure("cannot write \(url.path): \(error.localizedDescription)")
            }
        }
    }
}
