import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryReplica
import DiaryStore
import DiaryTerminal
import Foundation
import Terminal

// MARK: - diary search

extension DiaryCommand {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search titles and bodies.",
            discussion: """
                Words must all match, anywhere in a word (substring search, Japanese included); \
                "a phrase" matches as written; a trailing * is accepted (kyo* finds Kyoto).
                """
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The search query.")
        var query: String

        @Option(help: "relevance (default) or newest.")
        var order: EntryOrder?

        @Option(help: "Results per page, 1 to \(PageRequest.maxPerPage) (default: \(PageRequest.defaultPerPage)).")
        var perPage: Int?

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func validate() throws {
            do {
                _ = try SearchQuery.terms(of: query)
            } catch {
                throw ValidationError("the query \(error.message)")
            }
            if let perPage, !(1...PageRequest.maxPerPage).contains(perPage) {
                throw ValidationError("--per-page must be between 1 and \(PageRequest.maxPerPage), not \(perPage)")
            }
        }

        func run() async throws {
            let endpoint = ListEntries(
                page: PageRequest(perPage: perPage ?? PageRequest.defaultPerPage), filter: EntryFilter(query: query, order: order)
            )
            let found: EntryPage? = try await OfflineReading.answer(globals) { client in
                if json {
                    Output.write(raw: try await client.sendRaw(endpoint).body)
                    return nil
                }
                return try await client.send(endpoint)
            } offline: { replica in
                let page = try replica.entries(EntryQuery(page: endpoint.page, filter: endpoint.filter))
                if json {
                    Output.write(raw: try OfflineReading.json(page))
                    return nil
                }
                return page
            }
            guard let page = found else { return }
            guard !page.entries.isEmpty else {
                Output.write("nothing found")
                return
            }
            let style = globals.style
            var lines = DisplayFormat.searchRows(page.entries, highlight: style.color ? .bold : .brackets, style: style)
            lines.append(DisplayFormat.count(page, "result", "results"))
            Output.write(lines.joined(separator: "\n"))
        }
    }
}

extension EntryOrder: ExpressibleByArgument {}

// MARK: - diary tags

extension DiaryCommand {
    struct Tags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "tags", abstract: "List tags with their number of entries.")

        @OptionGroup var globals: GlobalOptions

        @Flag(help: "Print the server's JSON as received.")
        var json = false

        func run() async throws {
            try await OfflineReading.answer(globals) { client in
                try await Output.show(ListTags(), client: client, json: json, as: DisplayFormat.tagListing)
            } offline: { replica in
                let tags = TagList(tags: try replica.tags())
                Output.write(json ? String(decoding: try OfflineReading.json(tags), as: UTF8.self) : DisplayFormat.tagListing(tags))
            }
        }
    }
}

/// A `--since`/`--until`/`--date` value: RFC 3339, or a plain date meaning that day in the
/// style's time zone (its first second, or its last with `endOfDay`).
func parseDate(_ text: String?, _ option: String, endOfDay: Bool, style: DisplayStyle) throws -> Date? {
    guard let text else { return nil }
    if let day = style.day(text) { return endOfDay ? day.end : day.start }
    guard let date = EntryFilter.date(text, endOfDay: endOfDay) else {
        throw ValidationError("\(option) must be an RFC 3339 time (2026-11-01T09:00:00Z) or a date (2026-11-01), not '\(text)'")
    }
    return date
}

/// `--tag` values normalised, or a usage error naming the bad one.
func normalisedTags(_ tags: [String]) throws -> [String] {
    switch TagRules.tags(tags, field: "--tag") {
    case .success(let tags): return tags
    case .failure(let error): throw ValidationError("--tag \(error.message)")
    }
}
