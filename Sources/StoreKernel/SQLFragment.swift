import Foundation

/// A piece of SQL with its arguments in place: `"e.diary_id = \(diaryID)"` holds the text and
/// the value where its placeholder goes, so that no list of arguments has to line up with the
/// placeholders by position. Each engine renders it in its own placeholder style (`?` or
/// `$n`) and binds the values in the same pass (see `rendered(placeholder:)`), as GRDB's
/// `SQL` literal and postgres-nio's `PostgresQuery` do; one type serves the builder both use.
public struct SQLFragment: Sendable, Equatable, ExpressibleByStringInterpolation {
    enum Piece: Sendable, Equatable {
        case text(String)
        case value(SQLValue)
    }

    var pieces: [Piece]

    public init(stringLiteral text: String) {
        pieces = [.text(text)]
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(2 * interpolationCount + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.text(literal)) }
        }

        /// A value, bound where it stands.
        public mutating func appendInterpolation(_ value: SQLValue) {
            pieces.append(.value(value))
        }

        public mutating func appendInterpolation(_ value: Int64) {
            pieces.append(.value(.integer(value)))
        }

        public mutating func appendInterpolation(_ value: Int) {
            pieces.append(.value(.integer(Int64(value))))
        }

        public mutating func appendInterpolation(_ value: String) {
            pieces.append(.value(.text(value)))
        }

        public mutating func appendInterpolation(_ value: Date) {
            pieces.append(.value(.date(value)))
        }

        /// Text written into the statement as it is: only the store's own SQL, never a caller's value.
        public mutating func appendInterpolation(sql text: String) {
            if !text.isEmpty { pieces.append(.text(text)) }
        }

        /// Another fragment, with its values.
        public mutating func appendInterpolation(_ fragment: SQLFragment) {
            pieces += fragment.pieces
        }
    }

    /// The statement's text, with `placeholder(n)` for its n-th value (from 1), and its values in order.
    public func rendered(placeholder: (Int) -> String) -> (sql: String, values: [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        for piece in pieces {
            switch piece {
            case .text(let text):
                sql += text
            case .value(let value):
                values.append(value)
                sql += placeholder(values.count)
            }
        }
        return (sql, values)
    }
}

extension Array where Element == SQLFragment {
    /// The fragments one after another, `separator` between them, values kept in order.
    public func joined(separator: String) -> SQLFragment {
        var joined: SQLFragment = ""
        joined.pieces.removeAll(keepingCapacity: true)
        for (index, fragment) in enumerated() {
            if index > 0 { joined.pieces.append(.text(separator)) }
            joined.pieces += fragment.pieces
        }
        return joined
    }
}

/// A value bound to a statement. A date is one value whatever the engine keeps: SQLite binds
/// its RFC 3339 text, PostgreSQL a timestamptz.
public enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    case date(Date)
    case null
}
