import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation

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
            let entries = try ExportFile.entries(ImportedEntry.self, in: data)
            var total = ImportResult()
            var progress = ProgressBar(total: entries.count, label: "import")
            var done = 0
            for batch in try ExportFile.batches(entries, maxBytes: Self.batchBytes) {
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
