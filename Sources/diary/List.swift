import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryReplica
import DiaryStore
import DiaryTerminal

// MARK: - diary list

extension DiaryCommand {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List entries, newest first.")

        @OptionGroup var globals: GlobalOptions

        @Option(help: "The page to show, counted from 1.")
        var page: Int = 1

        @Option(help: "Entries per page, 1 to \(PageRequest.maxPerPage) (default: \(PageRequest.defaultPerPage)).")
        var perPage: Int?

        @Option(help: ArgumentHelp("Only the entries of this diary.", valueName: "diary-id"))
        var diary: Int64?

        @Option(help: ArgumentHelp("Only entries created on or after this time or local date (2026-11-01).", valueName: "date"))
        var since: String?

        @Option(help: ArgumentHelp("Only entries created on or before this time or local date (a date includes its whole day).", valueName: "date"))
        var until: String?

        @Option(help: ArgumentHelp("Only entries with this tag (repeatable: all must match).", valueName: "tag"))
        var tag: [String] = []

        @Flag(help: "Every entry to the end, following the server's cursors instead of page numbers.")
        var all = false

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func validate() throws {
            guard page > 0 else { throw ValidationError("--page must be a positive integer, not \(page)") }
            if let perPage, !(1...PageRequest.maxPerPage).contains(perPage) {
                throw ValidationError("--per-page must be between 1 and \(PageRequest.maxPerPage), not \(perPage)")
            }
            if let diary { try validateID(diary, "--diary") }
            _ = try filter()
        }

        private func filter() throws -> EntryFilter {
            EntryFilter(
                since: try parseDate(since, "--since", endOfDay: false, style: globals.style), until: try parseDate(until, "--until", endOfDay: true, style: globals.style),
                tags: try normalisedTags(tag)
            )
        }

        func run() async throws {
            let request = PageRequest(page: page, perPage: perPage ?? PageRequest.defaultPerPage)
            let filter = try filter()
            try await OfflineReading.answer(globals) { client in
                if let diary {
                    try await show(ListDiaryEntries(diaryID: diary, page: request, filter: filter), client)
                } else {
                    try await show(ListEntries(page: request, filter: filter), client)
                }
            } offline: { replica in
                try showOffline(replica, EntryQuery(diaryID: diary, page: request, filter: filter))
            }
        }

        /// The same listing from the replica: a page, or with `--all` every page in turn.
        private func showOffline(_ replica: ReplicaReader, _ query: EntryQuery) throws {
            guard all else {
                let entries = try replica.entries(query)
                if json {
                    Output.write(raw: try OfflineReading.json(entries))
                } else {
                    Output.write(DisplayFormat.entryListing(try replica.markingUnsent(entries), perPage: perPage, diaryID: diary, style: globals.style))
                }
                return
            }
            var query = query
            query.page = PageRequest(page: 1, perPage: PageRequest.maxPerPage)
            var shown = 0
            while true {
                let entries = try replica.entries(query)
                if json {
                    Output.write(raw: try OfflineReading.json(entries))
                } else if !entries.entries.isEmpty {
                    Output.write(DisplayFormat.entryRows(try replica.markingUnsent(entries).entries, style: globals.style).joined(separator: "\n"))
                }
                shown += entries.entries.count
                guard entries.entries.count == query.page.perPage else { break }
                query.page.page += 1
            }
            if !json { Output.write(DisplayFormat.count(shown, "entry", "entries")) }
        }

        private func show<E: FilteredEndpoint>(_ endpoint: E, _ client: DiaryClient) async throws where E.Response == EntryPage {
            if all {
                try await showAll(endpoint, client)
            } else if json {
                Output.write(raw: try await client.sendRaw(endpoint).body)
            } else {
                let entries = try await client.send(endpoint)
                Output.write(DisplayFormat.entryListing(entries, perPage: perPage, diaryID: diary, style: globals.style))
            }
        }

        /// Pages by cursor to the end: rows as they come (or one JSON object per page, one a line).
        private func showAll<E: FilteredEndpoint>(_ endpoint: E, _ client: DiaryClient) async throws where E.Response == EntryPage {
            var endpoint = endpoint
            var shown = 0
            while true {
                let raw = try await client.sendRaw(endpoint)
                let page = try DiaryClient.decode(E.self, from: raw)
                if json {
                    Output.write(raw: raw.body)
                } else if !page.entries.isEmpty {
                    Output.write(DisplayFormat.entryRows(page.entries, style: globals.style).joined(separator: "\n"))
                }
                shown += page.entries.count
                guard let cursor = page.nextCursor, !page.entries.isEmpty else { break }
                endpoint.filter.cursor = cursor
            }
            if !json { Output.write(DisplayFormat.count(shown, "entry", "entries")) }
        }
    }
}
