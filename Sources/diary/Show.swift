import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryTerminal
import Terminal

// MARK: - diary show

extension DiaryCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show one entry.",
            discussion: "On a terminal the body is rendered from Markdown and long entries go through $PAGER (default: less -R); in a pipe it is printed as written."
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The entry's id.")
        var entryID: Int64

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func validate() throws {
            try validateID(entryID, "entry-id")
        }

        func run() async throws {
            let endpoint = GetEntry(entryID: entryID)
            let entry: Entry? = try await OfflineReading.answer(globals) { client in
                if json {
                    Output.write(raw: try await client.sendRaw(endpoint).body)
                    return nil
                }
                return try await client.send(endpoint)
            } offline: { replica in
                guard let entry = try replica.entry(id: entryID) else {
                    throw CommandFailure("entry \(entryID) is not in the local copy")
                }
                if json {
                    Output.write(raw: try OfflineReading.json(entry))
                    return nil
                }
                return entry
            }
            guard let entry else { return }
            if let size = Terminal.size(of: .output) {
                // A person at a terminal: Markdown rendered to the window's width, through the pager.
                // The images' sizes come from the server; offline, or when it cannot be reached,
                // an image shows without them.
                let client = globals.offline ? nil : try? globals.makeClient()
                let sizes = if let client { await client.imageSizes(in: [entry.body]) } else { [String: (width: Int, height: Int)]() }
                let lines = DisplayFormat.entryScreen(entry, style: globals.style, width: size.columns, imageSizes: sizes)
                try Pager.show(lines.joined(separator: "\n") + "\n")
            } else {
                Output.write(DisplayFormat.entryDetail(entry, style: globals.style))
            }
        }
    }
}
