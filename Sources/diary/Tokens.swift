import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal

// MARK: - diary tokens

extension DiaryCommand {
    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tokens",
            abstract: "List, make or revoke your named tokens (one per app, each read-only or not).",
            discussion: "Managing tokens needs your main token or a token with the write scope.",
            subcommands: [ListCommand.self, AddCommand.self, RevokeCommand.self],
            defaultSubcommand: ListCommand.self
        )

        struct ListCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "List your named tokens: id, scope, created, last used (to the minute), name. Never the tokens."
            )

            @OptionGroup var globals: GlobalOptions

            @Flag(help: "Print the server's JSON as received.")
            var json = false

            func run() async throws {
                let style = globals.style
                try await Output.show(ListTokens(), client: try globals.makeClient(requiringToken: true), json: json) { list in
                    DisplayFormat.tokenListing(list, style: style)
                }
            }
        }

        struct AddCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Make a named token and print it: it is shown this once.",
                discussion: "diary tokens add 'iA Writer'; diary tokens add 'Feed reader' --read-only"
            )

            @OptionGroup var globals: GlobalOptions

            @Argument(help: "What the token is for, as the list shows it.")
            var name: String

            @Flag(help: "A token that reads (private entries included) but cannot write.")
            var readOnly = false

            func validate() throws {
                if case .failure(let error) = NewToken(name: name, scope: .read).validated() {
                    throw ValidationError(error.errors.map { "\($0.field) \($0.message)" }.joined(separator: "; "))
                }
            }

            func run() async throws {
                let client = try globals.makeClient(requiringToken: true)
                let created = try await client.send(CreateToken(NewToken(name: name, scope: readOnly ? .read : .write)))
                Output.write(DisplayFormat.createdToken(created))
            }
        }

        struct RevokeCommand: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke",
                abstract: "Revoke a named token: it fails from now on, on every server."
            )

            @OptionGroup var globals: GlobalOptions

            @Argument(help: "The token's id (see diary tokens list).")
            var tokenID: Int64

            func validate() throws {
                try validateID(tokenID, "token-id")
            }

            func run() async throws {
                let client = try globals.makeClient(requiringToken: true)
                _ = try await client.send(RevokeToken(tokenID: tokenID))
                Output.write("revoked token \(tokenID)")
            }
        }
    }
}
