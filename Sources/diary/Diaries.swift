import ArgumentParser
import DiaryAPI
import DiaryClient

// MARK: - diary diaries

extension DiaryCommand {
    struct Diaries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the diaries: id, owner, entry count, title.")

        @OptionGroup var globals: GlobalOptions

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func run() async throws {
            let client = try globals.makeClient()
            if json {
                Output.write(raw: try await client.sendRaw(ListDiaries()).body)
            } else {
                Output.write(DisplayFormat.diaryListing(try await client.send(ListDiaries())))
            }
        }
    }
}
