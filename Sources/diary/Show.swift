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

        /// The entry to show, with its images' sizes when the server answered (offline, an
        /// image shows without them rather than waiting on a server out of reach).
        private struct Shown {
            var entry: Entry
            var imageSizes: [String: (width: Int, height: Int)]
        }

        func validate() throws {
            try validateID(entryID, "entry-id")
        }

        func run() async throws {
            let endpoint = GetEntry(entryID: entryID)
            let window = Terminal.size(of: .output)
            let shown: Shown? = try await OfflineReading.answer(globals) { client in
                if json {
                    Output.write(raw: try await client.sendRaw(endpoint).body)
                    return nil
                }
                let entry = try await client.send(endpoint)
                // The images' sizes come from the server, so only an answer from it has them.
                return Shown(entry: entry, imageSizes: window == nil ? [:] : await client.imageSizes(in: [entry.body]))
            } offline: { replica in
                guard let entry = try replica.entry(id: entryID) else {
                    throw CommandFailure("entry \(entryID) is not in the local copy")
                }
                if json {
                    Output.write(raw: try OfflineReading.json(entry))
                    return nil
                }
                return Shown(entry: entry, imageSizes: [:])
            }
            guard let shown else { return }
            if let window {
                // A person at a terminal: Markdown rendered to the window's width, through the pager.
                let lines = DisplayFormat.entryScreen(shown.entry, style: globals.style, width: window.columns, imageSizes: shown.imageSizes)
                try Pager.show(lines.joined(separator: "\n") + "\n")
            } else {
                Output.write(DisplayFormat.entryDetail(shown.entry, style: globals.style))
            }
        }
    }
}
