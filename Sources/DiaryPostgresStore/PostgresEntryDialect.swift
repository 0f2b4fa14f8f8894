import DiaryAPI
import Foundation
import PostgresNIO
import StoreKernel

/// How PostgreSQL's store writes what `EntryListSQL` leaves to the engine.
///
/// Search finds what SQLite's store finds:
/// - A term of 3 or more characters must be a substring of the title or of the body, compared
///   after `lower()`, which under the database's C.UTF-8 collation folds non-ASCII letters too
///   (É and é), as SQLite's FTS5 trigram tokenizer does. The trigram GIN indexes on `lower(title)`
///   and `lower(body)` find the candidates; LIKE checks each.
/// - A shorter term, which trigrams cannot hold, must be a substring of `title || ' ' || body`
///   with ASCII letters folded only (SQLite's `lower()` without ICU), by a scan of the rows the
///   other conditions leave.
/// - A term holding a NUL matches nothing (no title or body holds one, and PostgreSQL text cannot).
///
/// Relevance (when a term of 3 or more characters is searched and no other order is asked):
/// SQLite ranks by bm25 over public entries; here an entry ranks by the number of those terms
/// its title holds, then by how many times they occur in its body, then newest id first. It
/// depends on the entry's own text only, so nobody's private words move anyone's order. As in
/// SQLite, a signed-in viewer's own unlisted and private matches come first, newest first.
enum PostgresEntryDialect: EntrySQLDialect {
    static let entryColumns = PostgresDiaryStore.entryColumns
    static let noRow = "FALSE"

    static let upperASCII = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    static let lowerASCII = "abcdefghijklmnopqrstuvwxyz"

    static func termConditions(_ search: TermSearch) -> [SQLFragment] {
        search.terms.map { term in
            if search.isIndexed(term) {
                let pattern = likePattern(term)
                return "(lower(e.title) LIKE lower(\(pattern)) OR lower(e.body) LIKE lower(\(pattern)))"
            }
            return "strpos(translate(e.title || ' ' || e.body, '\(sql: upperASCII)', '\(sql: lowerASCII)'), \(asciiLowercased(term))) > 0"
        }
    }

    static func indexMatch(_ search: TermSearch, viewerID: Int64?) -> SQLFragment? {
        nil  // The terms' conditions use the trigram indexes themselves.
    }

    static func rankedPage(_ search: TermSearch, conditions: [SQLFragment], viewerID: Int64?, window: SQLFragment) -> SQLFragment {
        // Per term: does the title hold it, and how often does the body.
        let titleHits: [SQLFragment] = search.indexed.map { "(lower(e.title) LIKE lower(\(likePattern($0))))::integer" }
        let bodyHits: [SQLFragment] = search.indexed.map { term in
            "(char_length(lower(e.body)) - char_length(replace(lower(e.body), lower(\(term)), ''))) / char_length(lower(\(term)))"
        }
        let own = viewerID == nil ? "" : "e.visibility = 'public', CASE WHEN e.visibility <> 'public' THEN e.created END DESC, "
        return """
            \(sql: entryColumns) WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(sql: own)\(titleHits.joined(separator: " + ")) DESC, \(bodyHits.joined(separator: " + ")) DESC, e.entry_id DESC
            \(window)
            """
    }

    /// A term as a LIKE pattern that matches it literally anywhere: `\`, `%` and `_` escaped
    /// (`\` is LIKE's escape).
    static func likePattern(_ term: String) -> String {
        var escaped = "%"
        for character in term {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "%"
    }

    /// A–Z to a–z and nothing else, as SQLite's `lower()` and the `translate()` above.
    static func asciiLowercased(_ term: String) -> String {
        String(String.UnicodeScalarView(term.unicodeScalars.map { scalar in
            ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
        }))
    }
}

extension SQLFragment {
    /// The statement with `$n` placeholders and its values bound, for postgres-nio.
    var postgres: PostgresQuery {
        let (sql, values) = rendered { "$\($0)" }
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .integer(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .date(let date): bindings.append(date)
            case .null: bindings.appendNull()
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}
