import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryReplica
import DiarySQLiteStore
import DiaryTerminal
import Foundation
import HTTPTypes

// MARK: - diary add

extension DiaryCommand {
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Write a new entry.",
            discussion: """
                The text comes from --body, else standard input when it is not a terminal, else $EDITOR \
                (default: vi). Without a title argument, the text's first line is the title \
                ("# " removed) and the rest, after a blank line, is the body.
                """
        )

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The title (default: the first line of the text).")
        var title: String?

        @Option(help: ArgumentHelp("The body (default: standard input, else $EDITOR).", valueName: "text"))
        var body: String?

        @Option(help: ArgumentHelp("The diary to write in (default: your first diary).", valueName: "diary-id"))
        var diary: Int64?

        @Option(help: ArgumentHelp("A tag (repeatable).", valueName: "tag"))
        var tag: [String] = []

        @Option(help: ArgumentHelp("Back-date the entry: an RFC 3339 time or a date (2026-11-01).", valueName: "date"))
        var date: String?

        @Option(help: "public, unlisted (anyone with its id) or private (you only); default: the diary's default.")
        var visibility: Visibility?

        @Flag(name: .customLong("private"), help: "The same as --visibility private.")
        var isPrivate = false

        @Flag(help: "Keep it a draft, yours alone, until 'diary publish ID'.")
        var draft = false

        @Option(help: ArgumentHelp("An image file to upload and show at the end of the body (repeatable).", valueName: "file"))
        var image: [String] = []

        func validate() throws {
            if isPrivate, let visibility, visibility != .private {
                throw ValidationError("--private and --visibility \(visibility.rawValue) say different things; give one.")
            }
            if let diary { try validateID(diary, "--diary") }
            _ = try normalisedTags(tag)
            _ = try parseDate(date, "--date", endOfDay: false, style: globals.style)
        }

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            var parts = try entryParts()
            if !image.isEmpty {
                // Uploaded first: the entry is written only once every image is kept.
                let lines = try await ImageAttachments.upload(image, client: client)
                parts.body += (parts.body.isEmpty ? "" : "\n\n") + lines.joined(separator: "\n\n")
            }
            let newEntry = NewEntry(
                title: parts.title, body: parts.body, diaryID: diary,
                tags: tag.isEmpty ? nil : try normalisedTags(tag), created: try parseDate(date, "--date", endOfDay: false, style: globals.style),
                visibility: isPrivate ? .private : visibility, draft: draft ? true : nil
            )
            let post = CreateEntry(newEntry)
            // One key for the post and its retry: if the first answer was lost on the way back,
            // the server replays it instead of writing the entry twice.
            let keyText = UUID().uuidString
            let key: HTTPFields = [.idempotencyKey: keyText]
            let entry: Entry
            do {
                guard !globals.offline else { throw CommandFailure("offline") }
                do {
                    entry = try await client.send(post, headers: key)
                } catch is ConnectionError {
                    entry = try await client.send(post, headers: key)
                }
            } catch where OfflineWriting.applies(globals, error) {
                try queueOffline(newEntry, key: keyText)
                return
            }
            Output.write("created entry \(entry.id): \(entry.title)" + DisplayFormat.marker(entry, style: globals.style))
        }

        /// The entry into the replica's outbox, shown there at once; sent by `diary sync`.
        private func queueOffline(_ newEntry: NewEntry, key: String) throws {
            let now = Date()
            let item = OutboxItem(kind: .add, entryID: 0, request: try OfflineWriting.encoded(newEntry), idempotencyKey: key, baseTag: nil, written: now)
            try OfflineWriting.queue(globals, item) { replica in
                guard let owner = try replica.replica.store.replicaOwnerDiary() else {
                    throw CommandFailure("the local copy holds no diary of yours yet: nothing was written")
                }
                return Entry(
                    id: 0, diaryID: newEntry.diaryID ?? owner.diaryID, author: owner.name, title: newEntry.title, body: newEntry.body,
                    created: newEntry.created ?? now, updated: now, tags: newEntry.tags ?? [], visibility: newEntry.visibility?.value ?? .public,
                    draft: newEntry.draft ?? false
                )
            }
        }

        /// Title and body from the arguments, standard input or the editor.
        private func entryParts() throws -> EntryText.Parts {
            if let body {
                // Given on the command line: taken as written.
                return title.map { EntryText.Parts(title: $0, body: body) } ?? EntryText.parse(body)
            }
            let text: String
            if !StandardInput.isTerminal {
                text = try StandardInput.readAll()
            } else {
                text = try Editor.edit("")
                guard !EntryText.isBlank(text) || title != nil else {
                    throw CommandFailure("the text is empty; no entry was created")
                }
            }
            return title.map { EntryText.Parts(title: $0, body: EntryText.cleanBody(text)) } ?? EntryText.parse(text)
        }
    }
}
