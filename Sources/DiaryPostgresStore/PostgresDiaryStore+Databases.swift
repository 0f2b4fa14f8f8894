import DiaryStore
import Foundation
import PostgresNIO

/// Making and removing whole databases on a server: for tests (a fresh database each) and for
/// setting up a server. The URL names the database to connect to while doing it (`postgres`).
extension PostgresDiaryStore {
    /// Creates an empty UTF-8 database with the C.UTF-8 locale (what search's case folding
    /// assumes), owned by the URL's user.
    public static func createDatabase(named name: String, on serverURL: PostgresURL) throws(StoreError) {
        try withAdminConnection(serverURL, subject: "new database \(name)") { session in
            try session.execute(
                "CREATE DATABASE \(quotedIdentifier(name)) TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'"
            )
        }
    }

    /// Drops the database, closing any connection still open to it.
    public static func dropDatabase(named name: String, on serverURL: PostgresURL) throws(StoreError) {
        try withAdminConnection(serverURL, subject: "database \(name)") { session in
            try session.execute("DROP DATABASE IF EXISTS \(quotedIdentifier(name)) WITH (FORCE)")
        }
    }

    /// A name as an SQL identifier, quoted: whatever it holds, it stays one name.
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func withAdminConnection(_ url: PostgresURL, subject: String, _ body: (SQLSession) throws -> Void) throws(StoreError) {
        do {
            let connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration(url), id: 0, logger: logger
            ).wait()
            defer { try? connection.close().wait() }
            try body(SQLSession(connection: connection, logger: logger))
        } catch {
            throw StoreError(error, subject: .operation(subject))
        }
    }
}
