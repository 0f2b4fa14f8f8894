import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryReplica
import DiarySQLiteStore
import Foundation
import DiaryTerminal
import HTTPTypes

// MARK: - diary edit

extension DiaryCommand {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an entry.",
            discussion: """
                With --title, --body, --visibility or --date, changes only those fields. With neither, opens the entry in \
                $EDITOR (default: vi) as its title, a blank line and its body, and saves what you write.
                """
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The entry's id.")
        var entryID: Int64

        @Option(help: "The new title.")
        var title: String?

        @Option(help: ArgumentHelp("The new body.", valueName: "text"))
        var body: String?

        @Option(help: "public, unlisted or private. Its date stays unless --date is given.")
        var visibility: Visibility?

        @Option(help: ArgumentHelp("Move the entry to this date: an RFC 3339 time or a date (2026-11-01).", valueName: "date"))
        var date: String?

        func validate() throws {
            try validateID(entryID, "entry-id")
            _ = try parseDate(date, "--date", endOfDay: false, style: globals.style)
        }

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            if title != nil || body != nil || visibility != nil || date != nil {
                let created = try parseDate(date, "--date", endOfDay: false, style: globals.style)
                let patch = EntryPatch(title: title, body: body, visibility: visibility, created: created)
                let entry: Entry
                do {
                    guard !globals.offline else { throw CommandFailure("offline") }
                    entry = try await client.send(UpdateEntry(entryID: entryID, patch))
                } catch where OfflineWriting.applies(globals, error) {
                    try queueOffline(patch)
                    return
                }
                Output.write("updated entry \(entry.id)" + DisplayFormat.marker(entry, style: globals.style))
                return
            }

            guard !globals.offline else { throw CommandFailure("offline, edit takes --title, --body, --visibility or --date") }
            let read = try await client.sendRaw(GetEntry(entryID: entryID))
            let entry = try DiaryClient.decode(GetEntry.self, from: read)
            let original = EntryText.compose(title: entry.title, body: entry.body)
            let edited = try Editor.edit(original)
            // Titles are kept as written here: one that starts with "# " is the entry's own.
            let before = EntryText.parse(original, stripsHeading: false)
            let after = EntryText.parse(edited, stripsHeading: false)
            guard after != before else {
                Output.write("nothing changed")
                return
            }
            guard !EntryText.isBlank(edited) else {
                throw CommandFailure("the text is empty; entry \(entryID) was not changed")
            }
            // If-Match: the server refuses the change if the entry changed since it was read.
            let condition: HTTPFields = read.headerFields[.eTag].map { [.ifMatch: $0] } ?? [:]
            do {
                let updated = try await client.send(ReplaceEntry(entryID: entryID, EntryReplacement(title: after.title, body: after.body)), headers: condition)
                Output.write("updated entry \(updated.id)")
            } catch {
                // What the user wrote is never thrown away: it goes to a file they are told about.
                let saved = try Editor.keep(edited, name: "diary-entry-\(entryID)")
                if let failure = error as? APIError, failure.status == 412 {
                    throw CommandFailure("entry \(entryID) changed on the server since you opened it; nothing was saved there. Your text is in \(saved)")
                }
                throw CommandFailure("\(error); your text is in \(saved)")
            }
        }
    
        /// The change into the replica's outbox, based on the entry as the replica holds it
        /// (`If-Match` its tag, or the tag an earlier queued change brings back).
        private func queueOffline(_ patch: EntryPatch) throws {
            let now = Date()
            try OfflineWriting.queue(globals, OutboxItem(
                kind: .edit, entryID: entryID, request: try OfflineWriting.encoded(patch), idempotencyKey: UUID().uuidString, baseTag: nil, written: now
            )) { replica in
                guard var entry = try replica.entry(id: entryID) else { throw CommandFailure("entry \(entryID) is not in the local copy") }
                entry.title = patch.title ?? entry.title
                entry.body = patch.body ?? entry.body
                entry.visibility = patch.visibility?.value ?? entry.visibility
                entry.created = patch.created ?? entry.created
                entry.updated = now
                return entry
            }
        }
}
}
