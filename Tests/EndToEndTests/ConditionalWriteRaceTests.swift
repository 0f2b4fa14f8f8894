import DiaryAPI
import Foundation
import Testing

/// `If-Match` across processes: the condition is checked inside the write's own transaction
/// in the database, so servers that share it cannot both let an edit of the same version in.
@Suite(.serialized) struct ConditionalWriteRaceTests {
    /// Twelve edits of one entry, all sent with the ETag it had, half PATCH and half PUT,
    /// spread over three servers on one database and released together: exactly one is
    /// answered 200 and every other 412, and every server then shows the winner's edit.
    @Test func twelveRacingIfMatchEditsThroughThreeServersGiveExactlyOne200() throws {
        // Four workers each, so that every server runs its four edits at once.
        let first = try ServerProcess(extraArguments: ["--threads", "4"])
        let servers = [
            first, try ServerProcess(sharingDatabaseOf: first, extraArguments: ["--threads", "4"]),
            try ServerProcess(sharingDatabaseOf: first, extraArguments: ["--threads", "4"]),
        ]
        let token = try first.addUser("alice")
        let auth = ("Authorization", "Bearer \(token)"), json = ("Content-Type", "application/json")
        let created = try first.raw("POST", "/api/entries", headers: [auth, json], body: #"{"title":"v0","body":"first"}"#)
        try #require(created.status == 201, "\(created.text)")
        let id = try JSONDecoder.diary.decode(Entry.self, from: Data(created.body)).id
        let tag = try #require(try servers[1].raw("GET", "/api/entries/\(id)").header("ETag"))

        let editors = 12
        // Each editor connects first, then waits at the gate until all have, then sends: the
        // requests reach the servers as close together as threads allow.
        let gate = StartingGate(count: editors)
        let statuses = Statuses()
        let group = DispatchGroup()
        for index in 0..<editors {
            let server = servers[index % servers.count]
            let port = server.port
            let method = index.isMultiple(of: 2) ? "PATCH" : "PUT"
            let body = #"{"title":"edit \#(index)","body":"by editor \#(index)"}"#
            let request = "\(method) /api/entries/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Authorization: Bearer \(token)\r\nContent-Type: application/json\r\nIf-Match: \(tag)\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            group.enter()
            // A thread of its own: the shared dispatch pool may be busy with other tests and start it late.
            Thread {
                defer { group.leave() }
                do {
                    let connection = try RawConnection(port: port, timeoutSeconds: 60)
                    guard gate.arriveAndWaitForAll(timeout: 60) else { throw RawHTTPError(message: "not every editor connected within 60 s") }
                    try connection.send(request)
                    let response = try connection.readResponse()
                    statuses.record(index: index, status: response.status, body: response.text)
                } catch {
                    statuses.record(index: index, status: nil, body: "\(error)")
                }
            }.start()
        }
        try #require(group.wait(timeout: .now() + 120) == .success, "the editors did not finish within 120 s")

        let outcomes = statuses.all
        #expect(outcomes.count == editors)
        let winners = outcomes.filter { $0.status == 200 }
        #expect(winners.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0.status == 412 }.count == editors - 1, "\(outcomes)")
        let winner = try #require(winners.first)
        for server in servers {
            let entry = try JSONDecoder.diary.decode(Entry.self, from: Data(try server.raw("GET", "/api/entries/\(id)").body))
            #expect(entry.title == "edit \(winner.index)" && entry.body == "by editor \(winner.index)", "through \(server.url)")
        }
    }
}

/// Threads that each wait, up to a deadline, until `count` of them have arrived.
private final class StartingGate: @unchecked Sendable {
    private let condition = NSCondition()
    private let count: Int
    private var arrived = 0

    init(count: Int) { self.count = count }

    /// Counts this arrival and waits for the rest; false when `timeout` passed first.
    func arriveAndWaitForAll(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while arrived < count {
            if !condition.wait(until: deadline) { return arrived >= count }
        }
        return true
    }
}

/// The answers the editors got, recorded from their threads.
private final class Statuses: @unchecked Sendable {
    struct Outcome: CustomStringConvertible {
        var index: Int
        var status: Int?
        var body: String
        var description: String { "editor \(index): \(status.map(String.init) ?? "no answer") \(body.prefix(200))" }
    }

    private let lock = NSLock()
    private var outcomes: [Outcome] = []

    func record(index: Int, status: Int?, body: String) {
        lock.withLock { outcomes.append(Outcome(index: index, status: status, body: body)) }
    }

    var all: [Outcome] { lock.withLock { outcomes.sorted { $0.index < $1.index } } }
}
