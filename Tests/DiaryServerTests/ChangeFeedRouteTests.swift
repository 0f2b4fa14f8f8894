import DiaryAPI
import DiaryPostgresStore
import DiarySQLiteStore
import DiaryStore
import Foundation
import HTTPCore
import Testing

/// `GET /api/changes` over HTTP: its parameters, its bytes and its 410.
@Suite struct ChangeFeedRouteTests {
    @Test func entriesAreAsGetGivesThemAndTombstonesAreTwoFields() throws {
        let app = try TestApplication()
        let alice = try app.addUser("alice")
        let kept = try app.request("POST", "/api/entries", token: alice, json: #"{"title":"kept","body":"text","tags":["a"]}"#).decoded(Entry.self)
        let gone = try app.request("POST", "/api/entries", token: alice, json: #"{"title":"gone","body":""}"#).decoded(Entry.self)
        #expect(app.request("DELETE", "/api/entries/\(gone.id)", token: alice).status == 204)

        let answer = app.request("GET", "/api/changes")
        #expect(answer.status == 200 && answer.headers["Content-Type"]?.hasPrefix("application/json") == true)
        let text = String(decoding: try answer.wholeBody(), as: UTF8.self)
        let entry = String(decoding: try app.request("GET", "/api/entries/\(kept.id)").wholeBody(), as: UTF8.self)
        #expect(text == #"{"changes":[\#(entry),{"entry_id":\#(gone.id),"deleted":true}],"next":"3","more":false}"# + "\n")

        let own = try DiaryJSON.makeDecoder().decode(ChangePage.self, from: Data(app.request("GET", "/api/changes?limit=1", token: alice).wholeBody()))
        #expect(own.changes == [.entry(kept)] && own.more && own.next == "0.1")
    }

    @Test func badParametersAre400AndAnExpiredCursor410() throws {
        let app = try TestApplication()
        for target in ["/api/changes?since=x", "/api/changes?since=1.2.3", "/api/changes?since=-1", "/api/changes?limit=0", "/api/changes?limit=501"] {
            let answer = app.request("GET", target)
            #expect(answer.status == 400 && answer.problem != nil, "\(target)")
        }
        let alice = try app.addUser("alice")
        if let store = app.store as? SQLiteDiaryStore { try store.setTombstonesKept(1) }
        if let store = app.store as? PostgresDiaryStore { try store.setTombstonesKept(1) }
        for n in 0..<3 {
            let entry = try app.request("POST", "/api/entries", token: alice, json: #"{"title":"e\#(n)","body":""}"#).decoded(Entry.self)
            #expect(app.request("DELETE", "/api/entries/\(entry.id)", token: alice).status == 204)
        }
        let expired = app.request("GET", "/api/changes?since=1")
        #expect(expired.status == 410 && expired.problem?.type == "/problems/changes-cursor-expired")
        #expect(app.request("GET", "/api/changes").status == 200)
    }
}
