import DiaryAPI
import Foundation
import StoreKernel
import Testing

/// Values stay where their placeholders are, however fragments are nested and joined.
@Suite struct SQLFragmentTests {
    @Test func valuesAreNumberedInTheOrderOfTheText() {
        let inner: [SQLFragment] = ["a = \(Int64(1))", "b = \("x")", "c"]
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let outer: SQLFragment = "SELECT \(sql: "*") FROM t WHERE \(inner.joined(separator: " AND ")) AND d < \(date) LIMIT \(5)"
        let rendered = outer.rendered { "$\($0)" }
        #expect(rendered.sql == "SELECT * FROM t WHERE a = $1 AND b = $2 AND c AND d < $3 LIMIT $4")
        #expect(rendered.values == [.integer(1), .text("x"), .date(date), .integer(5)])
        #expect(outer.rendered { _ in "?" }.sql == "SELECT * FROM t WHERE a = ? AND b = ? AND c AND d < ? LIMIT ?")
    }

    /// A caller's text is a value, never SQL: it cannot close a quote.
    @Test func aStringIsBoundNotWritten() {
        let hostile = "x' OR '1'='1"
        let rendered = ("tag = \(hostile)" as SQLFragment).rendered { _ in "?" }
        #expect(rendered.sql == "tag = ?")
        #expect(rendered.values == [.text(hostile)])
    }
}
