@testable import DiaryAPI
import Foundation
import Testing

@Suite struct RFC3339Tests {
    @Test func formatsUTCWholeSeconds() {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 1_795_321_800.75)) == "2026-11-22T04:30:00Z")
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(RFC3339.date(from: "2026-11-22T04:30:00Z") == Date(timeIntervalSince1970: 1_795_321_800))
        #expect(RFC3339.date(from: "2026-11-22T13:30:00+09:00") == Date(timeIntervalSince1970: 1_795_321_800))
        #expect(RFC3339.date(from: "2026-11-22T04:30:00.123Z") == Date(timeIntervalSince1970: 1_795_321_800))
    }

    @Test(arguments: ["", "2026-11-22", "2026-02-30T00:00:00Z", "2026-11-22T25:00:00Z", "2026-11-22T04:30:00", "2026-11-22T04:30:00Zjunk", "２０２６-11-22T04:30:00Z"])
    func refusesWhatIsNotADate(text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }
}

@Suite struct PathTemplateTests {
    @Test func matchesAndRenders() {
        let template: PathTemplate = "/api/diaries/{diary_id}/entries"
        #expect(template.match(["api", "diaries", "7", "entries"]) == ["diary_id": "7"])
        #expect(template.match(["api", "diaries", "7"]) == nil)
        #expect(template.match(["api", "entries", "7", "entries"]) == nil)
        #expect(template.render(["diary_id": "7"]) == "/api/diaries/7/entries")
        #expect(template.render(["diary_id": "a b/c"]) == "/api/diaries/a%20b%2Fc/entries")
        #expect(template.description == "/api/diaries/{diary_id}/entries")
    }

    @Test func everyEndpointHasADistinctMethodAndPath() {
        let keys = APIEndpoints.all.map { "\($0.method) \($0.path)" }
        #expect(Set(keys).count == keys.count)
    }
}

@Suite struct JSONShapeTests {
    @Test func entryUsesSnakeCaseAndRFC3339() throws {
        let date = Date(timeIntervalSince1970: 1_795_321_800)
        let entry = Entry(id: 42, diaryID: 1, author: "alice", title: "t", body: "b", created: date, updated: date)
        let object = try JSONSerialization.jsonObject(with: DiaryJSON.makeEncoder().encode(entry)) as? [String: Any]
        #expect(Set(object?.keys ?? [:].keys) == ["entry_id", "diary_id", "author", "title", "body", "created", "updated", "tags", "visibility"])
        #expect(object?["visibility"] as? String == "public")
        var found = entry
        found.snippet = "<mark>t</mark>"
        let withSnippet = try JSONSerialization.jsonObject(with: DiaryJSON.makeEncoder().encode(found)) as? [String: Any]
        #expect(withSnippet?["snippet"] as? String == "<mark>t</mark>")
        #expect(object?["created"] as? String == "2026-11-22T04:30:00Z")
        #expect(try DiaryJSON.makeDecoder().decode(Entry.self, from: DiaryJSON.makeEncoder().encode(entry)) == entry)
    }

    @Test func pageWritesNullNeighbours() throws {
        let page = EntryPage(entries: [], page: 1, perPage: 20, total: 0)
        let text = String(decoding: try DiaryJSON.makeEncoder().encode(page), as: UTF8.self)
        #expect(text.contains(#""next_page":null"#) && text.contains(#""prev_page":null"#) && text.contains(#""per_page":20"#))
    }

    @Test func pageNeighbours() {
        #expect(EntryPage(entries: [], page: 1, perPage: 20, total: 57).nextPage == 2)
        #expect(EntryPage(entries: [], page: 3, perPage: 20, total: 57).nextPage == nil)
        #expect(EntryPage(entries: [], page: 3, perPage: 20, total: 57).prevPage == 2)
        #expect(EntryPage(entries: [], page: 3, perPage: 20, total: 60).nextPage == nil)
    }

    /// An estimated total is written only when it is one, read back as absent = exact, and a
    /// next page follows the rows, not the bound.
    @Test func anEstimatedTotal() throws {
        let exact = String(decoding: try DiaryJSON.makeEncoder().encode(EntryPage(entries: [], page: 1, perPage: 20, total: 57)), as: UTF8.self)
        #expect(!exact.contains("total_is_estimate"))
        let estimate = EntryPage(entries: [], page: 500, perPage: 20, total: 10_000, totalIsEstimate: true, moreFollow: true)
        let text = String(decoding: try DiaryJSON.makeEncoder().encode(estimate), as: UTF8.self)
        #expect(text.contains(#""total":10000,"total_is_estimate":true"#), "\(text)")
        #expect(try DiaryJSON.makeDecoder().decode(EntryPage.self, from: Data(text.utf8)) == estimate)
        #expect(try DiaryJSON.makeDecoder().decode(EntryPage.self, from: Data(exact.utf8)).totalIsEstimate == false)
        #expect(estimate.nextPage == 501 && estimate.totalText == "10,000+")
        #expect(EntryPage(entries: [], page: 500, perPage: 20, total: 10_000, totalIsEstimate: true).nextPage == nil)
        #expect(EntryPage(entries: [], page: 1, perPage: 20, total: 1_234_567).totalText == "1234567")
        #expect(EntryPage.totalText(1_234_567, isEstimate: true) == "1,234,567+" && EntryPage.totalText(999, isEstimate: true) == "999+")
    }
}

@Suite struct ValidationTests {
    @Test func titlesAreTrimmedAndBounded() throws {
        #expect(try NewEntry(title: "  Hi \n", body: "").validated().get().title == "Hi")
        #expect(throws: ValidationFailure.self) { try NewEntry(title: " \t ", body: "").validated().get() }
        #expect(throws: ValidationFailure.self) { try NewEntry(title: String(repeating: "x", count: 201), body: "").validated().get() }
        #expect(try NewEntry(title: String(repeating: "日", count: 200), body: "").validated().get().title.count == 200)
    }

    @Test func everyWrongFieldIsListed() {
        guard case .failure(let failure) = NewEntry(title: "", body: "a\u{0}b", diaryID: 0).validated() else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.errors.map(\.field) == ["title", "body", "diary_id"])
    }

    @Test func patchNeedsAField() throws {
        #expect((try? EntryPatch().validated().get()) == nil)
        #expect(try EntryPatch(body: "").validated().get() == EntryPatch(body: ""))
    }
}

@Suite struct FilterContractTests {
    @Test func searchQueriesSplitIntoTerms() throws {
        #expect(try SearchQuery.terms(of: #"京都 "rainy day" kyo*"#) == ["京都", "rainy day", "kyo"])
        #expect(throws: SearchQuery.SyntaxError.self) { try SearchQuery.terms(of: #"an "open quote"#) }
        #expect(throws: SearchQuery.SyntaxError.self) { try SearchQuery.terms(of: "  * ") }
    }

    /// Bounds on the work one query can ask for: its length, and its distinct terms.
    @Test func searchQueriesAreBounded() throws {
        #expect(try SearchQuery.terms(of: "rain Rain rain \"rain\" rain*") == ["rain", "Rain"])
        let eight = (1...SearchQuery.maxTerms).map { "w\($0)" }
        #expect(try SearchQuery.terms(of: (eight + eight).joined(separator: " ")) == eight)
        #expect(throws: SearchQuery.SyntaxError(message: "must hold at most 8 different words or phrases")) {
            try SearchQuery.terms(of: (eight + ["w9"]).joined(separator: " "))
        }
        let longest = String(repeating: "京", count: SearchQuery.maxLength)
        #expect(try SearchQuery.terms(of: longest) == [longest])
        #expect(throws: SearchQuery.SyntaxError(message: "must be at most 200 characters")) { try SearchQuery.terms(of: longest + "x") }
        // Code points, not characters: one character of many combining marks is not one.
        #expect(throws: SearchQuery.SyntaxError.self) { try SearchQuery.terms(of: "e" + String(repeating: "\u{301}", count: 200)) }
    }

    @Test func tagsAreNormalised() throws {
        #expect(try TagRules.tags([" Autumn   Leaves ", "autumn-leaves", "Japan"]).get() == ["autumn-leaves", "japan"])
        #expect((try? TagRules.tags(["a,b"]).get()) == nil)
        #expect((try? TagRules.tags(["#a"]).get()) == nil)
        #expect((try? TagRules.tags(["  "]).get()) == nil)
        #expect((try? TagRules.tags([String(repeating: "é", count: 41)]).get()) == nil)
        #expect((try? TagRules.tags((1...21).map { "t\($0)" }).get()) == nil)
        #expect((try? TagRules.tags(Array(repeating: "t", count: 21)).get()) == nil)
        #expect(try TagRules.tags(Array(repeating: "T", count: 20)).get() == ["t"])
    }

    @Test func plainDatesCoverTheWholeDay() {
        #expect(EntryFilter.date("2026-11-01", endOfDay: false) == RFC3339.date(from: "2026-11-01T00:00:00Z"))
        #expect(EntryFilter.date("2026-11-01", endOfDay: true) == RFC3339.date(from: "2026-11-01T23:59:59Z"))
        #expect(EntryFilter.date("2026-11-01T09:00:00+09:00", endOfDay: true) == RFC3339.date(from: "2026-11-01T00:00:00Z"))
        #expect(EntryFilter.date("11/01/2026", endOfDay: false) == nil)
    }

    @Test func filtersRoundTripThroughTheQuery() throws {
        let filter = EntryFilter(query: "京都", order: .newest, since: RFC3339.date(from: "2026-11-01T00:00:00Z"), tags: ["a", "b"], cursor: "c.d")
        let endpoint = ListEntries(page: PageRequest(page: 1, perPage: 5), filter: filter)
        let request = EndpointRequest<NoBody>(query: endpoint.query.map { (name: $0.name, value: $0.value ?? "") })
        #expect(try ListEntries(request).filter == filter)
    }
}
