import ArgumentParser
import DiaryClient

// MARK: - diary

/// `diary [--server URL] [--token TOKEN] COMMAND`: the command-line client of a diary server.
///
/// Start-up is most of a run, so the target links the Swift runtime and Foundation statically
/// (Package.swift) and the client keeps URLSession out (`SocketTransport`, `CurlTransport`).
///
/// Every command names itself with `commandName:`. Without it, argument-parser derives the
/// name with `String(describing:)` of the command's type, for every command at every start,
/// and each of those dynamic casts scans the 7,000 protocol conformances of this static binary
/// once: `perf` put that at a quarter of the CPU of `diary --help`, and naming the commands cut
/// its CPU time from 7.6 to 6.7 ms.
@main
struct DiaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary",
        abstract: "Read and write entries on a diary server.",
        discussion: """
            The server is --server, else $DIARY_SERVER, else \(GlobalOptions.defaultServer). \
            Commands that change entries need a token: --token, else $DIARY_TOKEN.

            Exit status: 0 on success, 1 when a request or the command failed, 64 for a usage error.
            """,
        subcommands: [
            List.self, Browse.self, Search.self, Show.self, Add.self, Edit.self, Delete.self, Diaries.self, Tags.self,
            Export.self, Import.self, WhoAmI.self,
            Tokens.self, Publish.self,
            Attach.self, Media.self,
            Sync.self, Status.self,
        ]
    )

    @OptionGroup var globals: GlobalOptions

    /// argument-parser's `main`, except that failed requests print one "error: …" line and exit 1.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard let message = ErrorReport.message(for: error) else {
                exit(withError: error)
            }
            Output.error(message)
            exit(withError: ExitCode.failure)
        }
    }
}
