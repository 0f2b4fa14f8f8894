import ArgumentParser
import DiaryAPI
import DiaryClient

// MARK: - diary list

extension DiaryCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List entries, newest first.")

        @OptionGroup var globals: GlobalOptions

        @Option(help: "The page to show, counted from 1.")
        var page: Int = 1

        @Option(help: "Entries per page, 1 to \(PageRequest.maxPerPage) (default: \(PageRequest.defaultPerPage)).")
        var perPage: Int?

        @Option(help: ArgumentHelp("Only the entries of this diary.", valueName: "diary-id"))
        var diary: Int64?

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func validate() throws {
            guard page > 0 else { throw ValidationError("--page must be a positive integer, not \(page)") }
            if let perPage, !(1...PageRequest.maxPerPage).contains(perPage) {
                throw ValidationError("--per-page must be between 1 and \(PageRequest.maxPerPage), not \(perPage)")
            }
            if let diary { try validateID(diary, "--diary") }
        }

        func run() async throws {
            let client = try globals.makeClient()
            let request = PageRequest(page: page, perPage: perPage ?? PageRequest.defaultPerPage)
            if let diary {
                try await show(ListDiaryEntries(diaryID: diary, page: request), client)
            } else {
                try await show(ListEntries(page: request), client)
            }
        }

        private func show<E: APIEndpoint>(_ endpoint: E, _ client: DiaryClient) async throws where E.Response == EntryPage {
            if json {
                Output.write(raw: try await client.sendRaw(endpoint).body)
            } else {
                let entries = try await client.send(endpoint)
                Output.write(DisplayFormat.entryListing(entries, perPage: perPage, diaryID: diary))
            }
        }
    }
}
