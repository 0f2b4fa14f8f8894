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
            commandName: "edit",
            abstract: "Change an entry.",
            discussion: """
                With --title, --body, --visibility or --date, changes only those fields. With neither, opens the entry in \
                $EDITOR (default: vi) as its title, a blank line and its body, and saves what you write. Without the \
                server (or with --offline) it changes the local copy and queues the change for diary sync.
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

            let read: RawResponse
            do {
                guard !globals.offline else { throw CommandFailure("offline") }
                read = try await client.sendRaw(GetEntry(entryID: entryID))
            } catch where OfflineWriting.applies(globals, error) {
                try editOfflineInEditor()
                return
            }
            let entry = try DiaryClient.decode(GetEntry.self, from: read)
            guard let after = try Self.editedInEditor(entry, entryID: entryID) else { return }
            // If-Match: the server refuses the change if the entry changed since it was read.
            let condition: HTTPFields = read.headerFields[.eTag].map { [.ifMatch: $0] } ?? [:]
            do {
                let updated = try await client.send(ReplaceEntry(entryID: entryID, EntryReplacement(title: after.parts.title, body: after.parts.body)), headers: condition)
                Output.write("updated entry \(updated.id)")
            } catch {
                // What the user wrote is never thrown away: it goes to a file they are told about.
                let saved = try Editor.keep(after.text, name: "diary-entry-\(entryID)")
                if let failure = error as? APIError, failure.status == 412 {
                    throw CommandFailure("entry \(entryID) changed on the server since you opened it; nothing was saved there. Your text is in \(saved)")
                }
                throw CommandFailure("\(error); your text is in \(saved)")
            }
        }

        /// `entry` opened in $EDITOR as its title, a blank line and its body: what was written
        /// (parts and text), or nil when nothing changed (said so); an emptied text is refused.
        static func editedInEditor(_ entry: Entry, entryID: Int64) throws -> (parts: EntryText.Parts, text: String)? {
            let original = EntryText.compose(title: entry.title, body: entry.body)
            let edited = try Editor.edit(original)
            // Titles are kept as written here: one that starts with "# " is the entry's own.
            let before = EntryText.parse(original, stripsHeading: false)
            let after = EntryText.parse(edited, stripsHeading: false)
            guard after != before else {
                Output.write("nothing changed")
                return nil
            }
            guard !EntryText.isBlank(edited) else {
                throw CommandFailure("the text is empty; entry \(entryID) was not changed")
            }
            return (after, edited)
        }

        /// The $EDITOR form without the server: the replica's copy is edited, and the change
        /// queued (`If-Match` the tag of that copy, as `--title` offline does). Should the copy
        /// change while the editor is open (a sync), the text goes to a file, as a 412 online.
        private func editOfflineInEditor() throws {
            let reader = try OfflineWriting.openReader(globals)
            let opened = try reader.entry(id: entryID)
            reader.close()
            guard let opened else { throw CommandFailure("entry \(entryID) is not in the local copy") }
            guard let after = try Self.editedInEditor(opened, entryID: entryID) else { return }
            do {
                try queueOffline(EntryPatch(title: after.parts.title, body: after.parts.body), expecting: opened)
            } catch {
                let saved = try Editor.keep(after.text, name: "diary-entry-\(entryID)")
                throw CommandFailure("\(ErrorReport.message(for: error) ?? String(describing: error)); your text is in \(saved)")
            }
        }

        /// The change into the replica's outbox, based on the entry as the replica holds it
        /// (`If-Match` its tag, or the tag an earlier queued change brings back).
        /// `expecting`: the copy the change was made on, which must still be the replica's.
        private func queueOffline(_ patch: EntryPatch, expecting: Entry? = nil) throws {
            let now = Date()
            try OfflineWriting.queue(globals, OutboxItem(
                kind: .edit, entryID: entryID, request: try OfflineWriting.encoded(patch), idempotencyKey: UUID().uuidString, baseTag: nil, written: now
            )) { replica in
                guard var entry = try replica.entry(id: entryID) else { throw CommandFailure("entry \(entryID) is not in the local copy") }
                if let expecting, expecting != entry {
                    throw CommandFailure("entry \(entryID) changed in the local copy since you opened it (a sync); nothing was queued")
                }
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
