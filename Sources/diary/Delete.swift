import ArgumentParser
import DiaryAPI
import DiaryClient

// MARK: - diary delete

extension DiaryCommand {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an entry.")

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The entry's id.")
        var entryID: Int64

        func validate() throws {
            try validateID(entryID, "entry-id")
        }

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            _ = try await client.send(DeleteEntry(entryID: entryID))
            Output.write("deleted entry \(entryID)")
        }
    }
}
