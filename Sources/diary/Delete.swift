import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryReplica
import DiarySQLiteStore
import Foundation

// MARK: - diary delete

extension DiaryCommand {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an entry.")

        @OptionGroup var globals: GlobalOptions

        @Argument(help: "The entry's id.")
        var entryID: Int64

        func validate() throws {
            try validateID(entryID, "entry-id")
        }

        func run() async throws {
            let client = try globals.makeClient(requiringToken: true)
            do {
                guard !globals.offline else { throw CommandFailure("offline") }
                _ = try await client.send(DeleteEntry(entryID: entryID))
            } catch where OfflineWriting.applies(globals, error) {
                try OfflineWriting.queue(globals, OutboxItem(
                    kind: .delete, entryID: entryID, request: "", idempotencyKey: UUID().uuidString, baseTag: nil, written: Date()
                )) { _ in nil }
                return
            }
            Output.write("deleted entry \(entryID)")
        }
    }
}
