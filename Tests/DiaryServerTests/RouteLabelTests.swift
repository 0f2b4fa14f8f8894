import DiaryAPI
import DiaryServer
import HTTPCore
import Testing

/// Every answer names the route that made it (`Response.route`), for metrics and the access
/// log: the template, never the raw path, on answers built and answers kept by the cache alike.
@Suite struct RouteLabelTests {
    @Test func answersCarryTheirRouteTemplate() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let created = t.request("POST", "/api/entries", token: token, json: #"{"title":"t","body":"b"}"#)
        #expect(created.route == "/api/entries")
        let entry = try created.decoded(Entry.self)
        let built = t.request("GET", "/api/entries/\(entry.id)")
        let kept = t.request("GET", "/api/entries/\(entry.id)")
        #expect(t.app.responseCache?.counts.hits == 1)
        #expect(built.route == "/api/entries/{entry_id}")
        #expect(kept.route == "/api/entries/{entry_id}")
        let notModified = t.request("GET", "/api/entries/\(entry.id)", headers: [("If-None-Match", kept.headers["ETag"] ?? "")])
        #expect(notModified.status == 304)
        #expect(notModified.route == "/api/entries/{entry_id}")
        #expect(t.request("DELETE", "/api/entries").route == "/api/entries")
        #expect(t.request("GET", "/no/such/thing").route == nil)
    }
}
