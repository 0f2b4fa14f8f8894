import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal

// MARK: - diary diaries

extension DiaryCommand {
    struct Diaries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the diaries: id, owner, entry count, title.")

        @OptionGroup var globals: GlobalOptions

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func run() async throws {
            try await Output.show(ListDiaries(), client: try globals.makeClient(), json: json, as: DisplayFormat.diaryListing)
        }
    }
}
