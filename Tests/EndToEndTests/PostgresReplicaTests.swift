import DiaryAPI
import DiaryPostgresStore
import Foundation
import Synchronization
import Testing

/// Offline replicas against several servers on one PostgreSQL database (issue 22): a change
/// answered by one server is in the next page any server gives, so replicas syncing while
/// others write converge to what the server exports.
@Suite(.serialized) struct PostgresReplicaTests {
    /// One writer posting, editing, hiding and deleting through three servers in turn, as
    /// alice and as bob, while alice's replica syncs through the second server and bob's
    /// through the third, again and again; once the writer is done, one more sync each, and
    /// each replica equals the export its reader gets (compared as JSON, entry by entry).
    @Test(.enabled(if: postgresServer != nil, "DIARY_TEST_POSTGRES_URL names no server"))
    func twoSyncingClientsAndAWriterOnThreeServersConverge() throws {
        let postgres = try #require(postgresServer)
        let name = "diary_replica_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDiaryStore.createDatabase(named: name, on: postgres)
        defer { try? PostgresDiaryStore.dropDatabase(named: name, on: postgres) }
        let url = postgres.withDatabase(name).description
        let servers = try (0..<3).map { _ in try ServerProcess(database: url) }
        defer { for server in servers { server.stop() } }
        let alice = try servers[0].addUser("alice"), bob = try servers[0].addUser("bob")

        let writer = Writer(servers: servers, tokens: [alice, bob])
        let thread = Thread { writer.run(operations: 150) }
        thread.start()
        let aliceHome = ReplicaSyncTests.DataHome(), bobHome = ReplicaSyncTests.DataHome()
        let clients = [(servers[1], alice, aliceHome), (servers[2], bob, bobHome)]
        let deadline = ContinuousClock.now + .seconds(300)
        var rounds = 0
        repeat {
            for (server, token, home) in clients {
                let synced = try server.diary(["sync"], token: token, environment: home.environment)
                #expect(synced.status == 0, "\(synced.stderr)")
            }
            rounds += 1
        } while !writer.done && ContinuousClock.now < deadline
        try #require(writer.done, "the writer did not finish in time")
        #expect(writer.failures.isEmpty, "\(writer.failures)")

        for (server, token, home) in clients {
            #expect(try server.diary(["sync"], token: token, environment: home.environment).status == 0)
            let held = try ReplicaSyncTests.held(home.file(of: server, token: token))
            let exported = try ReplicaSyncTests.exported(servers[0], token: token)
            #expect(held.count == exported.count && !held.isEmpty, "held \(held.count), exported \(exported.count) after \(rounds) rounds")
            let encoder = DiaryJSON.makeEncoder()
            #expect(try held.map { try encoder.encode($0) } == exported.map { try encoder.encode($0) })
        }
    }

    /// Writes through the servers in turn: every operation answered before the next is sent.
    final class Writer: Sendable {
        let servers: [ServerProcess]
        let tokens: [String]
        private let state = Mutex((done: false, failures: [String]()))

        init(servers: [ServerProcess], tokens: [String]) {
            self.servers = servers
            self.tokens = tokens
        }

        var done: Bool { state.withLock { $0.done } }
        var failures: [String] { state.withLock { $0.failures } }

        /// `operations` writes: each a post, and now and then an edit, a change to private or
        /// public, or a deletion of an entry the same user posted before.
        func run(operations: Int) {
            var posted: [[Int64]] = tokens.map { _ in [] }
            for number in 0..<operations {
                let server = servers[number % servers.count], user = number % tokens.count
                let auth = [("Authorization", "Bearer \(tokens[user])"), ("Content-Type", "application/json")]
                do {
                    let created = try server.raw("POST", "/api/entries", headers: auth, body: #"{"title":"entry \#(number)","body":"written through \#(number % 3)"}"#)
                    if let entry = try? JSONDecoder.diary.decode(Entry.self, from: Data(created.body)) { posted[user].append(entry.id) }
                    else { record("POST \(number): \(created.status)") }
                    guard let target = posted[user].dropLast().randomElement() else { continue }
                    let (method, body): (String, String?) = switch number % 4 {
                    case 0: ("PATCH", #"{"title":"entry \#(number), edited"}"#)
                    case 1: ("PATCH", #"{"visibility":"private"}"#)
                    case 2: ("PATCH", #"{"visibility":"public"}"#)
                    default: ("DELETE", nil)
                    }
                    let answer = try servers[(number + 1) % servers.count].raw(method, "/api/entries/\(target)", headers: auth, body: body)
                    if !(200..<300).contains(answer.status) { record("\(method) \(target): \(answer.status)") }
                    if method == "DELETE" { posted[user].removeAll { $0 == target } }
                } catch {
                    record("\(number): \(error)")
                }
            }
            state.withLock { $0.done = true }
        }

        private func record(_ failure: String) {
            state.withLock { $0.failures.append(failure) }
        }
    }
}
