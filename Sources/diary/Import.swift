import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Foundation

// MARK: - diary import

extension DiaryCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Write the entries of an export (json, ndjson or archive) back, keeping ids and dates.",
            discussion: """
                Entries whose id exists are skipped: importing the same file twice adds nothing. An archive's \
                images are uploaded again (the server processes them as any upload) under new ids, and the \
                entries' links are rewritten to them; an image is not uploaded again when every entry \
                linking to it is already yours.
                """
        )

        /// Each request's body stays well under the server's 2 MiB limit.
        static let batchBytes = 1 << 20

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The file `diary export --format json|ndjson|archive` wrote.")
        var file: String

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            let url = URL(fileURLWithPath: file)
            let entries: [ImportedEntry]
            var images = ""
            if ExportArchive.isArchive(url) {
                let archive = try ImportArchive(url)
                let uploaded = try await archive.uploadImages(client: client)
                entries = archive.entries(linkingTo: uploaded.newIDs)
                images = ", \(DisplayFormat.count(uploaded.newIDs.count, "image", "images")) uploaded, \(uploaded.skipped) already there"
            } else {
                let data: Data
                do {
                    data = try Data(contentsOf: url)
                } catch {
                    throw CommandFailure("cannot read \(file): \(error.localizedDescription)")
                }
                entries = try ExportFile.entries(ImportedEntry.self, in: data)
            }
            let total = try await send(entries, client: client)
            Output.write("imported \(file): \(total.created) created, \(total.skipped) skipped" + images)
        }

        /// Sends `entries` in batches under the body limit, with a progress bar.
        private func send(_ entries: [ImportedEntry], client: DiaryClient) async throws -> ImportResult {
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
            return total
        }
    }
}
