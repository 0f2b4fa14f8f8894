import DiaryAPI
import DiaryClient
import DiaryReplica
import DiaryTerminal
import Foundation

// MARK: - Reading offline

/// `list`, `show`, `search` and `tags` answer from the replica (`diary sync`) when the server
/// cannot be reached, or always with `--offline`; `DIARY_OFFLINE=never` turns the fallback off
/// for scripts, which then get the connection error. Only a connection that fails falls back:
/// an answer from the server, even an error, is the answer.
enum OfflineReading {
    /// What `online` answers, or when the server is out of reach what `offline` reads from the
    /// replica, after one line on standard error saying when it was synced.
    static func answer<T>(
        _ globals: GlobalOptions, environment: [String: String] = RunEnvironment.variables,
        online: (DiaryClient) async throws -> T, offline: (ReplicaReader) throws -> T
    ) async throws -> T {
        var unreachable: ConnectionError?
        if !globals.offline {
            do {
                return try await online(try globals.makeClient())
            } catch let error as ConnectionError {
                guard fallbackAllowed(environment) else { throw error }
                unreachable = error
            }
        }
        let reader = try openReader(try globals.replicaLocation(environment: environment), unreachable: unreachable).get()
        defer { reader.close() }
        Output.note(notice(syncedAt: reader.syncedAt, now: Date(), style: globals.style) + "\n")
        return try offline(reader)
    }

    /// Whether a connection that fails may fall back to the replica: `DIARY_OFFLINE=never` says
    /// no, for scripts that want the connection's error.
    static func fallbackAllowed(_ environment: [String: String] = RunEnvironment.variables) -> Bool {
        environment["DIARY_OFFLINE"] != "never"
    }

    /// The replica opened to read, or why it cannot be, after why the server could not be
    /// reached: the connection's own words come first, as they name the server.
    static func openReader(_ location: ReplicaLocation, unreachable: ConnectionError?) -> Result<ReplicaReader, CommandFailure> {
        do {
            return .success(try ReplicaReader(location))
        } catch {
            return .failure(CommandFailure(unreachable.map { "\($0.description); \(error.description)" } ?? error.description))
        }
    }

    /// `offline: showing what was synced 2026-11-25 09:41 (3 hours ago)`.
    static func notice(syncedAt: Date, now: Date, style: DisplayStyle) -> String {
        "offline: showing what was synced \(style.date(syncedAt)) (\(age(now.timeIntervalSince(syncedAt))))"
    }

    /// "just now", "1 minute ago", "3 hours ago", "2 days ago".
    static func age(_ seconds: TimeInterval) -> String {
        let minutes = Int(max(0, seconds) / 60)
        func ago(_ n: Int, _ unit: String) -> String { "\(n) \(unit)\(n == 1 ? "" : "s") ago" }
        if minutes < 1 { return "just now" }
        if minutes < 60 { return ago(minutes, "minute") }
        if minutes < 48 * 60 { return ago(minutes / 60, "hour") }
        return ago(minutes / (24 * 60), "day")
    }

    /// A value as JSON, for `--json` answered from the replica (the server's bytes are not there).
    static func json<T: Encodable>(_ value: T) throws -> Data {
        try DiaryJSON.makeEncoder().encode(value)
    }
}

extension GlobalOptions {
    /// Where the replica of this server, for this token, is kept (`diary sync`).
    func replicaLocation(environment: [String: String] = RunEnvironment.variables) throws -> ReplicaLocation {
        ReplicaLocation(server: try serverURL(), token: resolvedToken(), environment: environment)
    }
}
