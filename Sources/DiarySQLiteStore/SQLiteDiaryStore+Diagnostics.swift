import DiaryStore
import GRDB

/// Looks inside the store's connections, for tests and maintenance: the settings each connection
/// really has, and how SQLite runs the store's queries.
extension SQLiteDiaryStore {
    enum Connection {
        /// The one connection that writes: `synchronous` matters here.
        case writer
        /// A connection of the reader pool.
        case reader
    }

    /// The value of `PRAGMA name` on one of the store's connections, as text.
    func pragma(_ name: String, on connection: Connection) throws(StoreError) -> String? {
        let sql = "PRAGMA \(name)"
        do {
            switch connection {
            case .writer: return try writer.writeWithoutTransaction { db in try String.fetchOne(db, sql: sql) }
            case .reader: return try writer.read { db in try String.fetchOne(db, sql: sql) }
            }
        } catch {
            throw StoreError(error, subject: .operation("pragma \(name)"))
        }
    }

    /// Runs SQL on the writer connection outside any transaction, e.g. a PRAGMA that only
    /// applies to that connection, or a change the protocol does not offer.
    func executeOnWriter(_ sql: String) throws(StoreError) {
        do {
            try writer.writeWithoutTransaction { db in try db.execute(sql: sql) }
        } catch {
            throw StoreError(error, subject: .operation("database \(path)"))
        }
    }

    /// The `detail` lines of `EXPLAIN QUERY PLAN sql` with these arguments.
    func queryPlan(_ sql: String, arguments: [Int64]) throws(StoreError) -> [String] {
        try read(.operation("query plan")) { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN \(sql)", arguments: StatementArguments(arguments))
                .map { row in try row.decode(String.self, atIndex: 3) }
        }
    }
}
