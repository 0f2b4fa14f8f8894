import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal

// MARK: - diary diaries

extension DiaryCommand {
    struct Diaries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diaries",
            abstract: "List the diaries, or change one of yours.",
            subcommands: [ListCommand.self, EditCommand.self],
            defaultSubcommand: ListCommand.self
        )

        struct ListCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "List the diaries: id, owner, entry count, default visibility, title."
            )

            @OptionGroup var globals: GlobalOptions

            @Flag(help: "Print the server's JSON as received.")
            var json = false

            func run() async throws {
                try await Output.show(ListDiaries(), client: try globals.makeClient(), json: json, as: DisplayFormat.diaryListing)
            }
        }

        struct EditCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "edit",
                abstract: "Change a diary's title or the visibility its new entries get.",
                discussion: "diary diaries edit 1 --default-visibility private: entries written without --visibility are private."
            )

            @OptionGroup var globals: GlobalOptions

            @Argument(help: "The diary's id.")
            var diaryID: Int64

            @Option(help: "The new title.")
            var title: String?

            @Option(help: "public, unlisted or private: what an entry written without a visibility gets.")
            var defaultVisibility: Visibility?

            func validate() throws {
                try validateID(diaryID, "diary-id")
                guard title != nil || defaultVisibility != nil else {
                    throw ValidationError("give --title, --default-visibility or both.")
                }
            }

            func run() async throws {
                let client = try globals.makeClient(requiringToken: true)
                let diary = try await client.send(UpdateDiary(diaryID: diaryID, DiaryPatch(title: title, defaultVisibility: defaultVisibility)))
                Output.write(DisplayFormat.diaryRows([diary]).joined(separator: "\n"))
            }
        }
    }
}
