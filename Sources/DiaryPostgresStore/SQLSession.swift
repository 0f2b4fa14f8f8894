import Foundation
import PostgresNIO

/// A value bound to a `$n` parameter; nil is SQL NULL (its type inferred by the server).
typealias SQLArgument = (any PostgresThrowingDynamicTypeEncodable)?

/// One connection, borrowed for one store call: its statements run one after another, each
/// waited for on the calling thread, at most `timeout` seconds each.
///
/// A statement whose answer nothing needs yet can be `send`-ed instead: postgres-nio queues it
/// on the connection and runs it (and sends the next) as soon as the one before is answered,
/// on its event loop, without waking the calling thread; the next statement waited for waits
/// for it first, in order, and throws its error if it failed. BEGIN goes this way with a
/// transaction's first statement, the data version's UPDATE with COMMIT, and a post's one
/// statement between BEGIN and COMMIT: one wake-up of the worker thread for all of them (about
/// 60 µs of CPU per hand-off on this machine).
/// postgres-nio does not send a queued statement before the one ahead is answered (its
/// ReadyForQuery), so a statement behind one that was lost never reached the server.
struct SQLSession {
    let connection: PostgresConnection
    /// The statements prepared on `connection` so far.
    let prepared: PreparedStatements
    let logger: Logger
    /// How long a statement may wait for the server's answer (see `waitForAnswer`).
    let timeout: TimeInterval
    /// Statements sent and not yet waited for, oldest first.
    let sent = Sent()
    /// Which of the 16 rows of a hot counter (`data_version`, a diary's `diary_activity`) this
    /// session's writes add to: one at random, so that concurrent writers seldom queue on one
    /// row lock held through their commits, and the same for both, so that two writers meet on
    /// either both or neither.
    let slot = Int16.random(in: 0...15)

    init(_ pooled: PooledConnection, logger: Logger, timeout: TimeInterval) {
        connection = pooled.connection
        prepared = pooled.prepared
        self.logger = logger
        self.timeout = timeout
    }

    /// A statement's rows, and how many rows it changed (nil for a prepared one: postgres-nio
    /// does not hand its command tag over).
    fileprivate struct Outcome: Sendable {
        var rows: [SQLRow]
        var changed: Int?
    }

    /// A statement's answer, to come: `rows` once it has been waited for.
    final class Answer: @unchecked Sendable {
        fileprivate let future: EventLoopFuture<Outcome>
        fileprivate var result: Result<Outcome, any Error>?
        fileprivate init(_ future: EventLoopFuture<Outcome>) { self.future = future }

        /// The rows, when the statement was waited for and succeeded; nil otherwise.
        var rows: [SQLRow]? { try? result?.get().rows }
    }

    final class Sent: @unchecked Sendable {
        fileprivate var answers: [Answer] = []
    }

    /// Sends one statement without waiting for its answer: the next statement waited for (or
    /// `waitForSent`) waits for it first, and throws its error.
    @discardableResult
    func send(_ sql: String, _ arguments: [SQLArgument] = []) throws -> Answer {
        let answer = Answer(try issue(sql, arguments))
        sent.answers.append(answer)
        return answer
    }

    /// Sends a prepared statement without waiting for its answer (the first time on this
    /// connection, waits for its preparation).
    @discardableResult
    func send(_ statement: PreparedSQL, _ arguments: [SQLArgument] = []) throws -> Answer {
        let answer = Answer(try issue(statement, arguments))
        sent.answers.append(answer)
        return answer
    }

    /// Waits for every statement sent before `answer` (or every one sent, when nil); throws the
    /// first one's error, in the order they were sent.
    ///
    /// One connection answers in order, so the caller blocks once, for `answer` (or the last
    /// sent), and wakes once for all: BEGIN, a write's statements and COMMIT cost one wake-up of
    /// the worker, not one each. That wait lasts up to `timeout` for all of them, so that a
    /// silent server costs a request `timeout` at most however many statements it sent (a lock
    /// wait near the lock timeout in one of them may end as `NoAnswer` then: a 503 either way).
    /// When it runs out, the connection is closed (so those still pending fail as closed), and
    /// the caller gets `NoAnswer`, unless one answered before failed on its own: then its error.
    func waitForSent(before answer: Answer? = nil) throws {
        let pending = sent.answers.prefix { $0 !== answer }
        guard let last = answer ?? pending.last else { return }
        settle(last)
        var silence: NoAnswer?
        if case .failure(let error as NoAnswer)? = last.result { silence = error }
        while let first = sent.answers.first, first !== answer {
            sent.answers.removeFirst()
            settle(first, timeout: silence == nil ? timeout : 0.01)
            if case .failure(let error)? = first.result {
                // The rest ran in a failed transaction (or not at all): only this error says why.
                sent.answers.removeFirst(sent.answers.prefix { $0 !== answer }.count)
                if let silence, error is NoAnswer || PostgresDiaryStore.isConnectionLost(error) { throw silence }
                throw error
            }
        }
    }

    /// Waits for `answer` (and for every statement sent before it, whose error comes first).
    func wait(_ answer: Answer) throws {
        if sent.answers.contains(where: { $0 === answer }) {
            defer { sent.answers.removeFirst() }  // `answer` itself, whatever happens
            try waitForSent(before: answer)
        }
        settle(answer)
        _ = try answer.result!.get()
    }

    /// Blocks until `answer` is answered, or `timeout` (the session's) is up, and keeps the outcome in it.
    private func settle(_ answer: Answer, timeout: TimeInterval? = nil) {
        guard answer.result == nil else { return }
        do {
            answer.result = .success(try Self.waitForAnswer(answer.future, on: connection, timeout: timeout ?? self.timeout))
        } catch {
            answer.result = .failure(error)
        }
    }

    /// Runs one statement with `$1`, `$2`, … bound to `arguments`, and returns its rows.
    @discardableResult
    func query(_ sql: String, _ arguments: [SQLArgument] = []) throws -> [SQLRow] {
        try run(issue(sql, arguments)).rows
    }

    /// Runs a statement whose values travel with it (an `SQLFragment` rendered) and returns its rows.
    @discardableResult
    func query(_ query: PostgresQuery) throws -> [SQLRow] {
        try run(issue(query)).rows
    }

    /// The first row's columns of a statement with its values, or nil without a row.
    func one<each Column: PostgresDecodable>(_ types: (repeat each Column).Type, _ query: PostgresQuery) throws -> (repeat each Column)? {
        try SQLRow.first(types, of: self.query(query))
    }

    /// Runs a prepared statement and returns its rows.
    @discardableResult
    func query(_ statement: PreparedSQL, _ arguments: [SQLArgument] = []) throws -> [SQLRow] {
        try run(issue(statement, arguments)).rows
    }

    /// Runs one statement and returns the number of rows it changed (or returned).
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLArgument] = []) throws -> Int {
        try run(issue(sql, arguments)).changed ?? 0
    }

    /// The first row's columns, or nil without a row.
    func one<each Column: PostgresDecodable>(
        _ types: (repeat each Column).Type, _ sql: String, _ arguments: [SQLArgument] = []
    ) throws -> (repeat each Column)? {
        try SQLRow.first(types, of: query(sql, arguments))
    }

    /// The first row's columns of a prepared statement, or nil without a row.
    func one<each Column: PostgresDecodable>(
        _ types: (repeat each Column).Type, _ statement: PreparedSQL, _ arguments: [SQLArgument] = []
    ) throws -> (repeat each Column)? {
        try SQLRow.first(types, of: query(statement, arguments))
    }

    private func run(_ future: EventLoopFuture<Outcome>) throws -> Outcome {
        let answer = Answer(future)
        sent.answers.append(answer)
        try wait(answer)
        return try answer.result!.get()
    }

    private func issue(_ sql: String, _ arguments: [SQLArgument]) throws -> EventLoopFuture<Outcome> {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            if let argument {
                try bindings.append(argument)
            } else {
                bindings.appendNull()
            }
        }
        return issue(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    private func issue(_ query: PostgresQuery) -> EventLoopFuture<Outcome> {
        connection.query(query, logger: logger).map {
            Outcome(rows: $0.rows.map(SQLRow.init), changed: $0.metadata.rows)
        }
    }

    private func issue(_ statement: PreparedSQL, _ arguments: [SQLArgument]) throws -> EventLoopFuture<Outcome> {
        let values = try arguments.map { argument -> PostgresData in
            guard let argument else { return .null }
            var buffer = ByteBuffer()
            try argument.encode(into: &buffer, context: .default)
            return PostgresData(type: argument.psqlType, formatCode: argument.psqlFormat, value: buffer)
        }
        return try prepare(statement).execute(values).map { Outcome(rows: $0.map(SQLRow.init), changed: nil) }
    }

    /// The statement as prepared on this connection, prepared now (and waited for) the first time.
    /// What was sent before is waited for first, so that its error, not the preparation's
    /// (refused in a failed transaction), is the one thrown.
    private func prepare(_ statement: PreparedSQL) throws -> PreparedQuery {
        if let query = prepared.queries[statement.text] { return query }
        try waitForSent()
        let query = try Self.waitForAnswer(connection.prepare(query: statement.text), on: connection, timeout: timeout)
        prepared.queries[statement.text] = query
        return query
    }

    /// Waits for `answer`, a reply on `connection`, for at most `timeout` seconds; past it
    /// `NoAnswer` is thrown and the connection is closed.
    ///
    /// postgres-nio has no query timeout: a server that stopped answering without closing the
    /// socket (frozen, or behind a network partition) would hold the caller, a server's worker
    /// thread, forever. And after `pg_ctl stop -m immediate` a query's future was seen never to
    /// complete at all, though its connection had closed. So the caller waits on a promise of
    /// its own, which the deadline fails if the answer has not completed it first (the later of
    /// the two is ignored), rather than on postgres-nio's future. Closing the connection makes
    /// the pool drop it, and the server roll back whatever it had begun on it.
    static func waitForAnswer<T: Sendable>(_ answer: EventLoopFuture<T>, on connection: PostgresConnection, timeout: TimeInterval) throws -> T {
        try waitAtMost(timeout, for: answer, on: connection.eventLoop) { let _: EventLoopFuture<Void> = connection.close() }
    }

    /// Waits for `future` for at most `timeout` seconds, then throws `NoAnswer` and runs
    /// `giveUp` on `eventLoop` (to close what the late answer would have used).
    static func waitAtMost<T: Sendable>(
        _ timeout: TimeInterval, for future: EventLoopFuture<T>, on eventLoop: any EventLoop, giveUp: @escaping @Sendable () -> Void
    ) throws -> T {
        let outcome = eventLoop.makePromise(of: T.self)
        future.hop(to: eventLoop).cascade(to: outcome)
        let deadline = eventLoop.scheduleTask(in: .nanoseconds(Int64(max(timeout, 0.001) * 1_000_000_000))) {
            outcome.fail(NoAnswer(seconds: timeout))
            giveUp()
        }
        defer { deadline.cancel() }
        return try outcome.futureResult.wait()
    }

    /// Closes `connection`, waiting for it at most `timeout` seconds.
    static func close(_ connection: PostgresConnection, timeout: TimeInterval) {
        _ = try? waitForAnswer(connection.close(), on: connection, timeout: timeout)
    }

    /// The server did not answer a statement in time; the connection was closed.
    struct NoAnswer: Error, CustomStringConvertible {
        let seconds: TimeInterval
        var description: String { "the server did not answer within \(seconds.rounded() == seconds ? "\(Int(seconds))" : "\(seconds)") s" }
    }
}

/// One row of an answer, whose columns `decode` reads by position.
///
/// postgres-nio asks for every column in binary. The rows of a statement prepared through its
/// `PreparedQuery` describe their columns as text all the same (the statement's description,
/// from before binary was asked for), so `PostgresRow.decode` would read binary bytes as text:
/// here every cell is read as binary, which is what the server sent for any statement.
struct SQLRow: Sendable {
    let row: PostgresRow
    /// Cells `decode` passes over first: a statement that puts its own columns before a list
    /// another decoder reads (the change feed's, before an entry's).
    private var skipped = 0

    init(row: PostgresRow) {
        self.row = row
    }

    /// The same row, its first `count` cells (after those already skipped) passed over.
    func skipping(_ count: Int) -> SQLRow {
        var view = self
        view.skipped += count
        return view
    }

    func decode<each Column: PostgresDecodable>(_ types: (repeat each Column).Type) throws -> (repeat each Column) {
        var cells = row.makeIterator()
        for _ in 0..<skipped { _ = cells.next() }
        func next<Value: PostgresDecodable>(_: Value.Type) throws -> Value {
            guard var cell = cells.next() else {
                throw PostgresDecodingError.Code.missingData
            }
            cell.format = .binary
            return try cell.decode(Value.self, context: .default)
        }
        return (repeat try next((each Column).self))
    }

    /// The first row's columns, or nil without a row.
    static func first<each Column: PostgresDecodable>(
        _ types: (repeat each Column).Type, of rows: [SQLRow]
    ) throws -> (repeat each Column)? {
        guard let row = rows.first else { return nil }
        let columns: (repeat each Column) = try row.decode(types)
        return columns
    }
}

/// A statement the server parses and plans once per connection, then runs by name: for the
/// statements every request or every write runs. Parsing and planning them each time took about a
/// third of PostgreSQL's CPU per post (perf, 16 clients posting). Every parameter is cast in
/// the text (`$1::bigint`): the types the server gives the parameters when it prepares the
/// statement must be those the arguments are sent as (binary, by their Swift types).
struct PreparedSQL: Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }
}

/// The statements prepared on one connection, by text: used by the one caller holding it.
final class PreparedStatements: @unchecked Sendable {
    fileprivate var queries: [String: PreparedQuery] = [:]
}

/// Splits a migration file into its statements: at each `;` that ends a statement, outside
/// quotes ('…', "…"), dollar-quoted bodies ($$…$$, $tag$…$tag$) and comments. The server's
/// extended protocol, which postgres-nio speaks, takes one statement at a time.
enum SQLScript {
    static func statements(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0
        func flush() {
            let statement = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !statement.isEmpty { statements.append(statement) }
            current = String.UnicodeScalarView()
        }
        func starts(with marker: [Unicode.Scalar], at position: Int) -> Bool {
            position + marker.count <= scalars.count && Array(scalars[position..<position + marker.count]) == marker
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "-" && index + 1 < scalars.count && scalars[index + 1] == "-" {
                // A line comment: dropped, so that a `;` or a quote in it means nothing.
                while index < scalars.count && scalars[index] != "\n" { index += 1 }
                continue
            }
            if scalar == "'" || scalar == "\"" {
                current.append(scalar)
                index += 1
                while index < scalars.count {
                    current.append(scalars[index])
                    index += 1
                    if scalars[index - 1] == scalar { break }
                }
                continue
            }
            if scalar == "$" {
                // A dollar quote: `$` then an optional tag then `$`.
                var end = index + 1
                while end < scalars.count && (scalars[end].properties.isAlphabetic || scalars[end] == "_") { end += 1 }
                if end < scalars.count && scalars[end] == "$" {
                    let marker = Array(scalars[index...end])
                    current.append(contentsOf: marker)
                    index = end + 1
                    while index < scalars.count && !starts(with: marker, at: index) {
                        current.append(scalars[index])
                        index += 1
                    }
                    if index < scalars.count {
                        current.append(contentsOf: marker)
                        index += marker.count
                    }
                    continue
                }
            }
            if scalar == ";" {
                flush()
                index += 1
                continue
            }
            current.append(scalar)
            index += 1
        }
        flush()
        return statements
    }
}
