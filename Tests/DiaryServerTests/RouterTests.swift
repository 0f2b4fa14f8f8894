import DiaryAPI
import DiaryServer
import Foundation
import HTTPCore
import Testing

// MARK: - Reading

@Suite struct ReadingTests {
    @Test func healthAnswersOK() throws {
        let t = try TestApplication()
        let response = t.request("GET", "/api/health")
        #expect(response.status == 200)
        #expect(try response.decoded(HealthStatus.self) == HealthStatus(status: "ok"))
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
    }

    @Test func listsEntriesNewestFirstWithPageNumbers() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        for title in ["one", "two", "three"] {
            #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"\#(title)","body":"b"}"#).status == 201)
        }
        let first = try t.request("GET", "/api/entries?per_page=2").decoded(EntryPage.self)
        #expect(first.entries.map(\.title) == ["three", "two"])
        #expect(first.total == 3 && first.page == 1 && first.perPage == 2)
        #expect(first.nextPage == 2 && first.prevPage == nil)
        let second = t.request("GET", "/api/entries?page=2&per_page=2")
        #expect(second.text.contains(#""next_page":null"#))
        let page = try second.decoded(EntryPage.self)
        #expect(page.entries.map(\.title) == ["one"])
        #expect(page.nextPage == nil && page.prevPage == 1)
        #expect(page.entries[0].author == "alice")
    }

    @Test func listsOneDiarysEntries() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let diary = try t.request("POST", "/api/diaries", token: token, json: #"{"title":"Travel"}"#).decoded(Diary.self)
        _ = t.request("POST", "/api/entries", token: token, json: #"{"title":"home","body":""}"#)
        _ = t.request("POST", "/api/entries", token: token, json: #"{"title":"Kyoto","body":"","diary_id":\#(diary.id)}"#)
        let page = try t.request("GET", "/api/diaries/\(diary.id)/entries").decoded(EntryPage.self)
        #expect(page.entries.map(\.title) == ["Kyoto"])
        #expect(page.total == 1)
        #expect(t.request("GET", "/api/diaries/999/entries").status == 404)
    }

    @Test func getsOneEntry() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let created = try t.request("POST", "/api/entries", token: token, json: #"{"title":"Hello","body":"World"}"#).decoded(Entry.self)
        let response = t.request("GET", "/api/entries/\(created.id)")
        #expect(response.status == 200)
        #expect(try response.decoded(Entry.self) == created)
        #expect(response.text.contains(#""entry_id":\#(created.id)"#))
        #expect(t.request("GET", "/api/entries/\(created.id + 1)").problem?.status == 404)
    }

    @Test func diariesAndMe() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let list = try t.request("GET", "/api/diaries").decoded(DiaryList.self)
        #expect(list.diaries.map(\.title) == ["alice's diary"])
        #expect(list.diaries[0].owner == "alice")
        let diary = try t.request("GET", "/api/diaries/\(list.diaries[0].id)").decoded(Diary.self)
        #expect(diary == list.diaries[0])
        #expect(t.request("GET", "/api/diaries/12345").problem?.status == 404)
        let me = try t.request("GET", "/api/me", token: token).decoded(User.self)
        #expect(me.name == "alice")
        #expect(t.request("GET", "/api/me", token: token).headers["Cache-Control"] == "no-store")
    }

    @Test func headIsGetWithoutBodyAndOptionsListsMethods() throws {
        let t = try TestApplication()
        #expect(t.request("HEAD", "/api/health").status == 200)
        let options = t.request("OPTIONS", "/api/entries")
        #expect(options.status == 204)
        #expect(options.headers["Allow"] == "GET, POST, HEAD, OPTIONS")
    }
}

// MARK: - Writing

@Suite struct WritingTests {
    @Test func createsAnEntryWithLocation() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let response = t.request("POST", "/api/entries", token: token, json: #"{"title":"  Hello  ","body":"First"}"#)
        #expect(response.status == 201)
        let entry = try response.decoded(Entry.self)
        #expect(entry.title == "Hello")
        #expect(entry.body == "First")
        #expect(entry.created == entry.updated)
        #expect(response.headers["Location"] == "/api/entries/\(entry.id)")
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test func createsTheFirstDiaryWhenTheUserHasNone() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let diaries = try t.request("GET", "/api/diaries").decoded(DiaryList.self).diaries
        let entry = try t.request("POST", "/api/entries", token: token, json: #"{"title":"x","body":""}"#).decoded(Entry.self)
        #expect(entry.diaryID == diaries[0].id)
        #expect(try t.request("GET", "/api/diaries/\(entry.diaryID)").decoded(Diary.self).entryCount == 1)
    }

    @Test func replacesPatchesAndDeletesOwnEntries() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let entry = try t.request("POST", "/api/entries", token: token, json: #"{"title":"a","body":"b"}"#).decoded(Entry.self)
        let path = "/api/entries/\(entry.id)"

        let replaced = try t.request("PUT", path, token: token, json: #"{"title":"A","body":"B"}"#).decoded(Entry.self)
        #expect(replaced.title == "A" && replaced.body == "B")
        #expect(t.request("PUT", path, token: token, json: #"{"title":"A"}"#).problem?.errors == [FieldError(field: "body", message: "is required")])

        let patched = try t.request("PATCH", path, token: token, json: #"{"body":"only body"}"#).decoded(Entry.self)
        #expect(patched.title == "A" && patched.body == "only body")
        #expect(t.request("PATCH", path, token: token, json: "{}").status == 422)

        #expect(t.request("DELETE", path, token: token).status == 204)
        #expect(t.request("GET", path).status == 404)
        #expect(t.request("DELETE", path, token: token).status == 404)
    }

    @Test func someoneElsesEntryOrDiaryIsForbiddenAndUnchanged() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let entry = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"mine","body":"x"}"#).decoded(Entry.self)
        let path = "/api/entries/\(entry.id)"
        #expect(t.request("PUT", path, token: bob, json: #"{"title":"stolen","body":"y"}"#).problem?.status == 403)
        #expect(t.request("PATCH", path, token: bob, json: #"{"title":"stolen"}"#).problem?.status == 403)
        #expect(t.request("DELETE", path, token: bob).problem?.status == 403)
        #expect(try t.request("GET", path).decoded(Entry.self) == entry)
        let forbidden = t.request("POST", "/api/entries", token: bob, json: #"{"title":"t","body":"","diary_id":\#(entry.diaryID)}"#)
        #expect(forbidden.problem?.status == 403)
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 1)
    }

    @Test func createsADiary() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let response = t.request("POST", "/api/diaries", token: token, json: #"{"title":"Work log"}"#)
        #expect(response.status == 201)
        let diary = try response.decoded(Diary.self)
        #expect(diary.title == "Work log" && diary.owner == "alice" && diary.entryCount == 0)
        #expect(response.headers["Location"] == "/api/diaries/\(diary.id)")
    }
}

// MARK: - Bad input

@Suite struct BadInputTests {
    /// Every error is problem+json whose status matches the response's.
    func expectProblem(_ response: Response, _ status: Int, _ detailContains: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status.code == status, sourceLocation: sourceLocation)
        let problem = response.problem
        #expect(problem?.status == status, "not a problem+json body: \(response.text)", sourceLocation: sourceLocation)
        if let detailContains {
            #expect(problem?.detail.contains(detailContains) == true, "detail: \(problem?.detail ?? "-")", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["abc", "0", "-1", "1.5", "1e3", "99999999999999999999", "%00", "..", "%zz"])
    func entryIDsThatAreNotPositiveInt64(id: String) throws {
        let t = try TestApplication()
        expectProblem(t.request("GET", "/api/entries/\(id)"), 400)
    }

    @Test(arguments: ["page=0", "page=abc", "page=-1", "per_page=0", "per_page=101", "per_page=x", "page=99999999999999999999", "page=9223372036854775807"])
    func pageParametersOutOfRange(query: String) throws {
        let t = try TestApplication()
        expectProblem(t.request("GET", "/api/entries?\(query)"), 400)
    }

    /// Past the end but within the deep-page cap (`RequestBudgetTests` has the pages past it).
    @Test func aPageFarPastTheEndIsEmpty() throws {
        let t = try TestApplication()
        let page = try t.request("GET", "/api/entries?page=100&per_page=100").decoded(EntryPage.self)
        #expect(page.entries.isEmpty && page.nextPage == nil && page.prevPage == 99)
    }

    @Test func missingGarbageAndUnknownTokensAre401WithAChallenge() throws {
        let t = try TestApplication()
        _ = try t.addUser("alice")
        let json = #"{"title":"t","body":""}"#
        for headers in [[], [("Authorization", "Bearer nope")], [("Authorization", "Basic YWxpY2U6eA==")], [("Authorization", "Bearer")]] {
            let response = t.request("POST", "/api/entries", json: json, headers: headers)
            expectProblem(response, 401)
            #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        }
        expectProblem(t.request("GET", "/api/me"), 401)
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 0)
    }

    @Test func malformedJSONWrongTypesAndInvalidUTF8Are400() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        for json in [#"{"title": "#, "not json", #"["title"]"#, #"{"title":1,"body":""}"#, #"{"title":"t","body":false}"#,
                     #"{"title":"t","body":"","diary_id":"1"}"#, #"{"title":"t","body":"","diary_id":1e400}"#, #"{"title":null,"body":""}"#, ""] {
            expectProblem(t.request("POST", "/api/entries", token: token, json: json), 400)
        }
        expectProblem(t.request("POST", "/api/entries", token: token, body: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]), 400, "UTF-8")
        let nested = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        expectProblem(t.request("POST", "/api/entries", token: token, json: nested), 400)
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 0)
    }

    @Test func aBodyThatIsNotJSONIs415WithTheHeaderToAdd() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let json = #"{"title":"t","body":""}"#
        expectProblem(t.request("POST", "/api/entries", token: token, json: json, contentType: nil), 415, "-H 'Content-Type: application/json'")
        expectProblem(t.request("POST", "/api/entries", token: token, json: json, contentType: "application/x-www-form-urlencoded"), 415, "Content-Type: application/json")
        expectProblem(t.request("POST", "/api/entries", token: token, json: json, contentType: "application/json; charset=latin1"), 415)
        #expect(t.request("POST", "/api/entries", token: token, json: json, contentType: "Application/JSON; charset=UTF-8").status == 201)
    }

    @Test func invalidTitlesAndUnknownDiariesAre422() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let long = String(repeating: "あ", count: 201)
        for (json, field) in [(#"{"title":"   ","body":""}"#, "title"), (#"{"title":"\#(long)","body":""}"#, "title"),
                              (#"{"title":"a\nb","body":""}"#, "title"), (#"{"body":"x"}"#, "title"),
                              (#"{"title":"t","body":"","diary_id":4242}"#, "diary_id"), (#"{"title":"t","body":"nul\u0000"}"#, "body")] {
            let response = t.request("POST", "/api/entries", token: token, json: json)
            expectProblem(response, 422)
            #expect(response.problem?.errors?.first?.field == field, "\(json)")
        }
        #expect(t.request("POST", "/api/entries", token: token, json: #"{"title":"\#(String(repeating: "あ", count: 200))","body":""}"#).status == 201)
    }

    @Test func unknownRoutesAre404AndWrongMethods405WithAllow() throws {
        let t = try TestApplication()
        expectProblem(t.request("GET", "/api/nothing"), 404)
        // Outside /api/ people read: a 404 there is a page (PagesTests), and / is the newest entries.
        #expect(t.request("GET", "/nothing").status == 404)
        #expect(t.request("GET", "/nothing").problem == nil)
        let response = t.request("DELETE", "/api/entries")
        expectProblem(response, 405)
        #expect(response.headers["Allow"] == "GET, POST, HEAD, OPTIONS")
        expectProblem(t.request("BREW", "/api/health"), 405)
        #expect(t.request("POST", "/api/entries/1").headers["Allow"] == "GET, PUT, PATCH, DELETE, HEAD, OPTIONS")
    }

    @Test func transportRefusalsAreProblems() throws {
        let t = try TestApplication()
        let request = Request(method: "POST", target: "/api/entries")
        let tooLarge = t.app.respond(to: .bodyTooLarge(limit: 2_097_152), request: request)
        expectProblem(tooLarge, 413)
        #expect(tooLarge.headers["Connection"] == "close")
        expectProblem(t.app.respond(to: .malformed("duplicate Content-Length"), request: request), 400)
    }

    @Test func sqlInParametersIsStoredAsText() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let title = "x'); DROP TABLE entries; --"
        let entry = try t.request("POST", "/api/entries", token: token, json: #"{"title":"\#(title)","body":"' OR 1=1 --"}"#).decoded(Entry.self)
        #expect(entry.title == title)
        expectProblem(t.request("GET", "/api/entries/1%20OR%201=1"), 400)
        expectProblem(t.request("GET", "/api/entries?page=1;DROP%20TABLE%20entries"), 400)
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 1)
    }
}
