import DiaryAPI
import Foundation
import HTTPCore
import Testing

/// Drafts through the router: `"draft": true` on a post, shown to its owner only (with
/// `"draft": true` in the JSON, which no other answer holds), published by `{"draft": false}`.
@Suite struct DraftRouteTests {
    @Test func aDraftIsShownToItsOwnerOnlyUntilPublished() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let posted = t.request("POST", "/api/entries", token: alice, json: #"{"title":"soon","body":"b","visibility":"public","draft":true}"#)
        #expect(posted.status == 201)
        #expect(posted.text.contains(#""draft":true"#))
        let draft = try posted.decoded(Entry.self)
        #expect(draft.draft && draft.visibility == .public)

        for token in [nil, bob] {
            #expect(t.request("GET", "/api/entries/\(draft.id)", token: token).status == 404)
            #expect(try t.request("GET", "/api/entries", token: token).decoded(EntryPage.self).total == 0)
            #expect(t.request("PATCH", "/api/entries/\(draft.id)", token: bob, json: #"{"draft":false}"#).status == 404)
        }
        #expect(t.request("GET", "/api/entries/\(draft.id)", token: alice).text.contains(#""draft":true"#))

        let published = t.request("PATCH", "/api/entries/\(draft.id)", token: alice, json: #"{"draft":false}"#)
        #expect(published.status == 200)
        #expect(!published.text.contains("draft"))
        #expect(try published.decoded(Entry.self).created >= draft.created)
        #expect(t.request("GET", "/api/entries/\(draft.id)").status == 200)
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 1)
    }

    @Test func draftMustBeABoolean() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        #expect(t.request("POST", "/api/entries", token: alice, json: #"{"title":"t","body":"b","draft":"yes"}"#).status == 400)
        #expect(t.request("PATCH", "/api/entries/1", token: alice, json: #"{"draft":null}"#).status == 422)
    }
}
