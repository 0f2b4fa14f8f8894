import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation
import Terminal

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
                let entries = try ImportFile.entries(in: raw.body)
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

// MARK: - diary import

extension DiaryCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the entries of an export (json or ndjson) back, keeping ids and dates.",
            discussion: "Entries whose id exists are skipped: importing the same file twice adds nothing."
        )

        /// Each request's body stays well under the server's 2 MiB limit.
        static let batchBytes = 1 << 20

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The file `diary export --format json|ndjson` wrote.")
        var file: String

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("cannot read \(file): \(error.localizedDescription)")
            }
            let entries = try ImportFile.entries(in: data)
            var total = ImportResult()
            var progress = ProgressBar(total: entries.count, label: "import")
            var done = 0
            for batch in try ImportFile.batches(entries, maxBytes: Self.batchBytes) {
                let result = try await client.send(ImportEntries(ImportBatch(entries: batch)))
                total.created += result.created
                total.skipped += result.skipped
                done += batch.count
                progress.update(done)
            }
            progress.finish()
            Output.write("imported \(file): \(total.created) created, \(total.skipped) skipped")
        }
    }
}

/// Reading exports back.
enum ImportFile {
    /// The entries of a JSON array or of NDJSON (one entry a line).
    static func entries(in data: Data) throws -> [Entry] {
        let decoder = DiaryJSON.makeDecoder()
        let first = data.first { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        do {
            if first == UInt8(ascii: "[") {
                return try decoder.decode([Entry].self, from: data)
            }
            return try data.split(separator: UInt8(ascii: "\n")).enumerated().compactMap { number, line in
                guard line.contains(where: { $0 > 32 }) else { return nil }
                do {
                    return try decoder.decode(Entry.self, from: Data(line))
                } catch {
                    throw CommandFailure("line \(number + 1) is not an exported entry: \(error)")
                }
            }
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure("the file is not an export (a JSON array or NDJSON of entries): \(error)")
        }
    }

    /// `entries` cut into runs whose JSON stays under `maxBytes`.
    static func batches(_ entries: [Entry], maxBytes: Int) throws -> [[Entry]] {
        let encoder = DiaryJSON.makeEncoder()
        var batches: [[Entry]] = [], current: [Entry] = [], size = 2
        for entry in entries {
            let bytes = try encoder.encode(entry).count + 1
            if !current.isEmpty && size + bytes > maxBytes {
                batches.append(current)
                current = []
                size = 2
            }
            current.append(entry)
            size += bytes
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }
}

/// A progress bar on standard error, drawn only when standard error is a terminal.
struct ProgressBar {
    let total: Int
    let label: String
    private let visible = Terminal.isTerminal(.error)
    private var drawn = false

    init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    mutating func update(_ done: Int) {
        guard visible, total > 0 else { return }
        let width = 30, filled = width * min(done, total) / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let line = "\r\(label) [\(bar)] \(done)/\(total)"
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
        drawn = true
    }

    mutating func finish() {
        if drawn { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
        drawn = false
    }
}
