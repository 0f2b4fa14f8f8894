import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation

// MARK: - diary export

extension DiaryCommand {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every entry, with all its fields, to a file or standard output.",
            discussion: """
                json and ndjson are what `diary import` reads back. markdown writes one file per entry \
                (ENTRY_ID.md) into the --output directory (default: diary-export), each with a front \
                matter block: entry_id, diary_id, author, created, updated, tags and title.
                """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case json, ndjson, markdown
        }

        @OptionGroup var globals: GlobalOptions

        @Option(help: "json, ndjson or markdown.")
        var format: Format = .ndjson

        @Option(help: ArgumentHelp("The file (a directory for markdown) to write; default: standard output.", valueName: "path"))
        var output: String?

        func run() async throws {
            let client = try globals.makeClient()
            let raw = try await client.sendRaw(ExportEntries(format: format == .json ? .json : .ndjson))
            switch format {
            case .json, .ndjson:
                guard let output else {
                    Output.write(raw: raw.body)
                    return
                }
                try write(raw.body, to: URL(fileURLWithPath: output))
                Output.write("exported to \(output)")
            case .markdown:
                let entries = try ExportFile.entries(in: raw.body)
                let directory = URL(fileURLWithPath: output ?? "diary-export", isDirectory: true)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                var progress = ProgressBar(total: entries.count, label: "export")
                for (index, entry) in entries.enumerated() {
                    try write(Data(DisplayFormat.markdown(entry).utf8), to: directory.appendingPathComponent("\(entry.id).md"))
                    progress.update(index + 1)
                }
                progress.finish()
                Output.write("exported \(DisplayFormat.count(entries.count, "entry", "entries")) to \(directory.path)")
            }
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
