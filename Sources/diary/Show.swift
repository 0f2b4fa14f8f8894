import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal

// MARK: - diary show

extension DiaryCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one entry.")

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The entry's id.")
        var entryID: Int64

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func validate() throws {
            try validateID(entryID, "entry-id")
        }

        func run() async throws {
            let client = try globals.makeClient()
            let endpoint = GetEntry(entryID: entryID)
            if json {
                Output.write(raw: try await client.sendRaw(endpoint).body)
            } else {
                Output.write(DisplayFormat.entryDetail(try await client.send(endpoint), style: globals.style))
            }
        }
    }
}
