import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal

// MARK: - diary whoami

extension DiaryCommand {
    struct WhoAmI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show the user the token belongs to.")

        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            Output.write(DisplayFormat.user(try await client.send(GetCurrentUser())))
        }
    }
}
