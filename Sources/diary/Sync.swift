import ArgumentParser
import DiaryAPI
import DiaryClient
import DiaryReplica
import DiaryStore
import DiaryTerminal
import Foundation

// MARK: - diary sync

extension DiaryCommand {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Copy what you may read from the server to this machine, for reading offline.",
            discussion: """
                The copy is one SQLite file per server and user under $XDG_DATA_HOME/diary/ \
                (default ~/.local/share/diary/), readable by you only. Each page of changes is \
                written in one transaction: a sync cut off keeps every page before, and the next \
                continues from there. Without a token the copy holds public entries only.
                """
        )

        @OptionGroup var globals: GlobalOptions

        @Flag(help: "Throw the local copy away and sync again from the beginning.")
        var reset = false

        func run() async throws {
            let client = try globals.makeClient()
            let location = try globals.replicaLocation()
            if reset { try Self.confirmReset(location) }
            let report = try await Self.perform(client: client, location: location, reset: reset, style: globals.style)
            let restarted = report.outcome.restarted ? " (the server no longer had what the copy needed: synced again from the beginning)" : ""
            let count = report.outcome.changes
            Output.write("synced \(count) change\(count == 1 ? "" : "s") to \(location.file.path)\(restarted)\n")
            guard report.conflicts.isEmpty else {
                for line in report.conflicts { Output.note(line + "\n") }
                throw ExitCode.failure
            }
        }

        /// What one sync did: the changes pulled, and one line per conflict among those sent.
        struct Report {
            var outcome: ReplicaSync.Outcome
            var conflicts: [String]
        }

        /// Sends the outbox, then pulls the change feed into the replica at `location` (thrown
        /// away first with `reset`): `diary sync`, and `r` in `diary browse` offline.
        static func perform(client: DiaryClient, location: ReplicaLocation, reset: Bool, style: DisplayStyle) async throws -> Report {
            // Asked before a reset throws the copy away, so that a refused token keeps it.
            let asked = client.hasToken && reset ? try await client.send(GetCurrentUser()).name : nil
            if reset { try Replica.remove(location) }
            let replica = try Self.open(location)
            defer { replica.close() }
            let user = try await Self.owner(of: replica, client: client, asked: asked)
            // What was written offline goes first, in order; the pull then brings the server's versions.
            let conflicts = client.hasToken ? try await OutboxSender(client: client, replica: replica, style: style).send() : []
            let (outcome, final) = try await ReplicaSync().run(
                replica, owner: user,
                fetch: { cursor in
                    do {
                        return try await client.send(ListChanges(since: cursor, limit: ChangePage.maxLimit))
                    } catch let error as APIError where error.status == 410 {
                        throw ReplicaSync.CursorExpired()
                    }
                },
                reopen: { try Self.open(location) }
            )
            if final !== replica { final.close() }
            return Report(outcome: outcome, conflicts: conflicts)
        }

        /// Changes written offline and not sent are lost with the copy: asked first at a
        /// terminal, refused elsewhere (a script cannot answer).
        static func confirmReset(_ location: ReplicaLocation) throws {
            guard let reader = try? ReplicaReader(location) else { return }
            let unsent = (try? reader.replica.store.outbox().count) ?? 0
            reader.close()
            guard unsent > 0 else { return }
            let what = "\(unsent) change\(unsent == 1 ? "" : "s") written offline \(unsent == 1 ? "is" : "are") not sent yet"
            guard StandardInput.isTerminal else {
                throw CommandFailure("\(what): run diary sync to send them first; the copy was not reset")
            }
            Output.note("\(what) and would be lost. Reset anyway? [y/N] ")
            guard let answer = readLine(), answer.lowercased().hasPrefix("y") else {
                throw CommandFailure("the copy was not reset")
            }
        }

        /// The name of the token's user: the one the replica keeps from its first sync, else
        /// the server's `/api/me` (one request saved on every later sync: a token never
        /// changes hands, and the replica's file is the token's).
        static func owner(of replica: Replica, client: DiaryClient, asked: String?) async throws -> String? {
            guard client.hasToken else { return nil }
            if let asked { return asked }
            if let kept = try replica.store.replicaState().owner { return kept }
            return try await client.send(GetCurrentUser()).name
        }

        /// The replica, or one line saying why it cannot be opened and what to do.
        static func open(_ location: ReplicaLocation) throws -> Replica {
            do {
                return try Replica(location)
            } catch {
                throw CommandFailure(Replica.cannotOpen(location, error))
            }
        }
    }
}
