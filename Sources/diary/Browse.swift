import ArgumentParser
import DiaryAPI
import DiaryBrowser
import DiaryClient
import DiaryReplica
import Foundation
import Terminal

// MARK: - diary browse

extension DiaryCommand {
    struct Browse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Browse entries full-screen: a list that opens an entry when selected.",
            discussion: """
                Keys: j/k or arrows move, Space/PgDn and b/PgUp page, g/G first and last, Enter or → opens, \
                q/Esc/← go back (q on the list quits), / searches (Esc clears it), r reloads, ? shows the keys. \
                Without the server (or with --offline) it browses the local copy (diary sync), and r syncs it first. \
                More entries load as the selection nears the end. Needs a terminal; `diary list` prints entries into a pipe.
                """
        )

        @OptionGroup var globals: GlobalOptions

        @Option(help: ArgumentHelp("Only the entries of this diary.", valueName: "diary-id"))
        var diary: Int64?

        @Option(help: ArgumentHelp("Only entries with this tag.", valueName: "tag"))
        var tag: String?

        @Option(help: ArgumentHelp("Start with this search.", valueName: "query"))
        var search: String?

        func validate() throws {
            _ = try listing()
        }

        /// What the options ask to list, or a usage error naming the bad one.
        private func listing() throws -> Listing {
            if let diary { try validateID(diary, "--diary") }
            if let search {
                do { _ = try SearchQuery.terms(of: search) } catch { throw ValidationError("--search \(error.message)") }
            }
            return Listing(diaryID: diary, tag: try tag.map { try normalisedTags([$0])[0] }, query: search)
        }

        func run() throws {
            guard Terminal.isTerminal(.input), Terminal.isTerminal(.output) else {
                Output.error("diary browse needs a terminal; use diary list to print entries")
                throw ExitCode.validationFailure
            }
            let source = FallbackEntrySource(
                client: try globals.makeClient(), location: try globals.replicaLocation(),
                style: globals.style, alwaysOffline: globals.offline, fallbackAllowed: OfflineReading.fallbackAllowed()
            )
            let browser = Browser(source: source, listing: try listing(), style: globals.style)
            let status = try browser.run()
            if status != 0 { throw ExitCode(status) }
        }
    }
}

/// The browser's pages from the diary server, newest first; failures in the CLI's own words.
struct ClientEntrySource: EntrySource {
    let client: DiaryClient

    var name: String { client.serverURL.absoluteString }

    func page(of listing: Listing, after cursor: String?, count: Int) async throws(EntrySourceError) -> EntryPage {
        do {
            return try await fetch(listing, after: cursor, count: count)
        } catch {
            throw Self.sourceError(error)
        }
    }

    func imageSizes(in entries: [Entry]) async -> [String: (width: Int, height: Int)] {
        await client.imageSizes(in: entries.map(\.body))
    }

    /// The page, or the client's own error (a `ConnectionError` lets the caller fall back).
    func fetch(_ listing: Listing, after cursor: String?, count: Int) async throws -> EntryPage {
        let filter = EntryFilter(query: listing.query, order: .newest, tags: listing.tag.map { [$0] } ?? [], cursor: cursor)
        let page = PageRequest(perPage: count)
        if let diaryID = listing.diaryID {
            return try await client.send(ListDiaryEntries(diaryID: diaryID, page: page, filter: filter))
        }
        return try await client.send(ListEntries(page: page, filter: filter))
    }

    /// A failure in the one line the status line shows.
    static func sourceError(_ error: any Error) -> EntrySourceError {
        EntrySourceError(ErrorReport.message(for: error) ?? String(describing: error))
    }
}
