import DiaryStore
import PostgresNIO

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
        case let error as PSQLError:
            self.init(error, subject: subject)
        case let error as PostgresDiaryStore.CommitOutcomeUnknown:
            self.init(.unavailable, subject, detail: error.description)
        case let error as SQLSession.NoAnswer:
            self.init(.unavailable, subject, detail: error.description)
        case let error as ConnectionPool.PoolError:
            self.init(.unavailable, subject, detail: error.description)
        case let error as PostgresURL.Invalid:
            self.init(.unavailable, subject, detail: error.description)
        case is PostgresDecodingError:
            // Its description can show the value: keep them out of the logs.
            self.init(.unavailable, subject, detail: "the database holds a value of an unexpected type")
        default:
            // NIO's own errors (connection refused, reset) name addresses and errno, nothing secret.
            self.init(.unavailable, subject, detail: "\(type(of: error)): \(error)")
        }
    }

    init(_ error: PSQLError, subject: Subject) {
        guard let info = error.serverInfo else {
            let reason = switch error.code {
            case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: "the connection to the server was closed"
            // NIO's reason (connection refused, host not found) names an address and errno, nothing secret.
            case .connectionError: "the server cannot be reached" + (error.underlying.map { " (\($0))" } ?? "")
            case .authMechanismRequiresPassword: "the server asks for a password and none was given (URL, PGPASSWORD or ~/.pgpass)"
            case .sslUnsupported: "the server does not offer TLS"
            default: "postgres-nio error \(error.code)"
            }
            self.init(.unavailable, subject, detail: reason)
            return
        }
        let state = info[.sqlState] ?? "?????"
        let message = info[.message] ?? "no message"
        if state == "23505" {
            let constraint = info[.constraintName] ?? ""
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
