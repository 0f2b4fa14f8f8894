import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal

// MARK: - diary publish

extension DiaryCommand {
    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish",
            abstract: "Publish a draft: it takes its visibility, dated now unless --date says otherwise."
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The draft's id.")
        var entryID: Int64

        @Option(help: ArgumentHelp("Its date instead of now: an RFC 3339 time or a date (2026-11-01).", valueName: "date"))
        var date: String?

        func validate() throws {
            try validateID(entryID, "entry-id")
            _ = try parseDate(date, "--date", endOfDay: false, style: globals.style)
        }

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            let created = try parseDate(date, "--date", endOfDay: false, style: globals.style)
            let entry = try await client.send(UpdateEntry(entryID: entryID, EntryPatch(created: created, draft: false)))
            Output.write("published entry \(entry.id): \(entry.title)" + DisplayFormat.marker(entry, style: globals.style))
        }
    }
}
