import DiaryStore
import PostgresNIO
import StoreKernel

extension StoreError {
    /// Any error met by the store, as the `StoreError` the protocol throws.
    ///
    /// A `StoreError` passes unchanged; a unique violation is `.conflict` (the store checks names
    /// and tokens first, so this only happens in a race with another writer; one on the token's
    /// index is about `.token`); everything else means the database cannot serve the call now,
    /// and is `.unavailable` with the reason in `detail`.
    ///
    /// The detail holds the server's SQLSTATE and message only: never the statement, its
    /// arguments, the server's DETAIL line (which quotes the duplicate key: a token hash) nor
    /// the connection's password.
    init(_ error: any Error, subject: Subject) {
        switch error {
        case let error as StoreError:
            self = error
        case let error as PostgresDiaryStore.CommitOutcomeUnknown:
            self.init(.unavailable, subject, detail: error.description)
        case let error as SQLSession.NoAnswer:
            self.init(.unavailable, subject, detail: error.description)
        case let error as ConnectionPool.PoolError:
            self.init(.unavailable, subject, detail: error.description)
        case let error as PostgresURL.Invalid:
            self.init(.unavailable, subject, detail: error.description)
        case let error as CorruptValue:
            self.init(error, subject: subject)
        case is PostgresDecodingError:
            // Its description can show the value: keep them out of the logs.
            self.init(.unavailable, subject, detail: "the database holds a value of an unexpected type")
        default:
            if let failure = PostgresFailure(error) {
                self.init(failure, subject: subject)
            } else {
                // NIO's own errors (connection refused, reset) name addresses and errno, nothing secret.
                self.init(.unavailable, subject, detail: "\(type(of: error)): \(error)")
            }
        }
    }

    init(_ failure: PostgresFailure, subject: Subject) {
        guard let state = failure.sqlState else {
            self.init(.unavailable, subject, detail: failure.reason)
            return
        }
        let message = failure.message ?? "no message"
        if state == "57014" {
            // statement_timeout (a read's `queryTimeout`) or a cancel: this statement's own end,
            // not the server's; its connection is whole.
            self.init(.timedOut, subject, detail: "PostgreSQL stopped the statement (57014: \(message))")
            return
        }
        if state == "23505" {
            let constraint = failure.constraint ?? ""
            self.init(.conflict, constraint == "users_token_hash_key" ? .token : subject, detail: "unique constraint \(constraint)")
            return
        }
        let reason = switch state {
        case "53100": "the disk is full"
        case "25006": "the database is read-only"
        case "57P01", "57P02", "57P03": "the server is shutting down or starting"
        case "53300": "the server has no connection slot free"
        case "28P01", "28000": "the server refused the login"
        case "3D000": "the database does not exist"
        case "55P03": "another transaction held a lock longer than the lock timeout"
        case "40P01": "deadlock, still after retries"
        case "40001": "serialization failure, still after retries"
        default: "unexpected PostgreSQL error"
        }
        self.init(.unavailable, subject, detail: "\(reason) (PostgreSQL \(state): \(message))")
    }
}

/// What the store reads of an error of the server or of the connection, whichever of
/// postgres-nio's two APIs threw it: `PSQLError` (statements sent whole) or `PostgresError`
/// (prepared statements, which go through its older `PostgresDatabase` API, where errors are
/// converted). Only the SQLSTATE, the message and the constraint's name are kept: never the
/// statement, its arguments or the server's DETAIL line (which quotes a duplicate key).
struct PostgresFailure {
    /// The server's SQLSTATE, message and constraint, when the server answered with an error.
    var sqlState: String?
    var message: String?
    var constraint: String?
    /// Why, when the server answered no error (a closed connection, a refused login).
    var reason = ""
    /// The connection broke below SQL (closed by the server, the network or this process), or
    /// the server is going away (SQLSTATE 08… or 57P…): not an error of a statement.
    var connectionLost = false

    init?(_ error: any Error) {
        switch error {
        case let error as PSQLError:
            if let info = error.serverInfo {
                self.init(sqlState: info[.sqlState], message: info[.message], constraint: info[.constraintName])
                return
            }
            switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
                self.init(reason: "the connection to the server was closed", connectionLost: true)
            case .connectionError:
                // NIO's reason (connection refused, host not found) names an address and errno, nothing secret.
                self.init(reason: "the server cannot be reached" + (error.underlying.map { " (\($0))" } ?? ""), connectionLost: true)
            case .authMechanismRequiresPassword:
                self.init(reason: "the server asks for a password and none was given (URL, PGPASSWORD or ~/.pgpass)")
            case .sslUnsupported:
                self.init(reason: "the server does not offer TLS")
            default:
                self.init(reason: "postgres-nio error \(error.code)")
            }
        case let error as PostgresError:
            switch error {
            case .server(let answer):
                self.init(sqlState: answer.fields[.sqlState], message: answer.fields[.message], constraint: answer.fields[.constraintName])
            case .connectionClosed:
                self.init(reason: "the connection to the server was closed", connectionLost: true)
            case .protocol("Unexpected connection close"):  // what PSQLError's uncleanShutdown becomes
                self.init(reason: "the connection to the server was closed", connectionLost: true)
            case .protocol(let text):
                self.init(reason: "postgres-nio: \(text)")
            }
        default:
            return nil
        }
    }

    private init(reason: String, connectionLost: Bool = false) {
        self.reason = reason
        self.connectionLost = connectionLost
    }

    private init(sqlState: String?, message: String?, constraint: String?) {
        self.sqlState = sqlState
        self.message = message
        self.constraint = constraint
        connectionLost = sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false
    }
}
