import ArgumentParser
import DiaryReplica
import Foundation

// MARK: - diary status

extension DiaryCommand {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the local copy: its server, its last sync, the entries it holds and the changes not sent.",
            discussion: "Reads the copy only; it never asks the server."
        )

        @OptionGroup var globals: GlobalOptions

        func run() async throws {
            let server = try globals.serverURL()
            let location = ReplicaLocation(server: server, token: globals.resolvedToken())
            var lines = ["server: \(server.absoluteString)", "copy: \(location.file.path)"]
            do {
                let reader = try ReplicaReader(location)
                defer { reader.close() }
                lines.append("last sync: \(globals.style.date(reader.syncedAt)) (\(OfflineReading.age(Date().timeIntervalSince(reader.syncedAt))))")
                lines.append("entries held: \(try reader.entryCount())")
                lines.append("changes not sent: \(try reader.replica.store.outbox().count)")
            } catch let error as ReplicaReader.Unavailable {
                lines.append("last sync: never (\(error.description))")
            }
            Output.write(lines.joined(separator: "\n") + "\n")
        }
    }
}
