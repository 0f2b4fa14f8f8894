import ArgumentParser

@main
struct DiaryServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diary-server",
        abstract: "The diary JSON API server, on an embedded SQLite database.",
        subcommands: [Serve.self, UserCommand.self, Seed.self],
        defaultSubcommand: Serve.self
    )
}

/// The database option every subcommand shares.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "The SQLite database file; created with its folder when missing.")
    var database = "db/diary.sqlite3"
}
