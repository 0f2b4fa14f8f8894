import DiaryAPI
import DiaryServer
import Foundation
import HTTPTypes
import HTTPCore
import StoreTestSupport
import Testing

@Suite struct MediaRouteTests {
    func upload(_ t: TestApplication, _ token: String, _ bytes: [UInt8], type: String = "image/png", headers: [(String, String)] = []) -> Response {
        t.request("POST", "/api/media", token: token, contentType: type, body: bytes, headers: headers)
    }

    @Test func anUploadIsKeptProcessedAndServedToItsOwnerAlone() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let response = upload(t, alice, TestImages.jpeg, type: "image/jpeg")
        #expect(response.status == 201, "\(response.text)")
        let item = try response.decoded(MediaItem.self)
        #expect(response.headers["Location"] == item.url && item.url == "/media/\(item.id)")
        #expect(item.contentType == "image/jpeg" && item.width == 8 && item.height == 8 && item.bytes > 0)

        let own = t.request("GET", item.url, token: alice)
        #expect(own.status == 200 && own.headers["Content-Type"] == "image/jpeg" && own.body.count == item.bytes)
        #expect(own.headers["X-Content-Type-Options"] == "nosniff" && own.headers["Cache-Control"] == "private, no-store")
        #expect(own.body.starts(with: [0xFF, 0xD8, 0xFF]))
        let described = try t.request("GET", "/api/media/\(item.id)", token: alice).decoded(MediaItem.self)
        #expect(described.width == 8 && described.url == item.url)
        #expect(t.request("GET", "/api/media/\(item.id)", token: bob).status == 404)
        #expect(t.request("GET", "/api/media/\(item.id)").status == 404)
        let tag = try #require(own.headers["ETag"])
        #expect(t.request("GET", item.url, token: alice, headers: [("If-None-Match", tag)]).status == 304)
        #expect(t.request("HEAD", item.url, token: alice).status == 200)

        // To others, the 404 of an id never given out, byte for byte.
        let never = t.request("GET", "/media/\(MediaID.random().text)")
        for answer in [t.request("GET", item.url), t.request("GET", item.url, token: bob)] {
            #expect(answer.status == 404 && answer.body == never.body)
        }
        #expect(t.request("GET", "/media/not-an-id").body == never.body)
    }

    @Test func anImageFollowsTheEntriesLinkingToItThroughTheCache() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let item = try upload(t, alice, TestImages.png).decoded(MediaItem.self)
        #expect(item.contentType == "image/png")
        let entry = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"walk","body":"![the path](\#(item.url))"}"#)
            .decoded(Entry.self)
        let seen = t.request("GET", item.url)
        #expect(seen.status == 200 && seen.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        // The entry's page, kept by the response cache, shows it; private, both go at once.
        let page = t.request("GET", "/entries/\(entry.id)")
        #expect(page.status == 200 && page.text.contains("<img src=\"\(item.url)\" alt=\"the path\" width=\"\(item.width)\" height=\"\(item.height)\""), "\(page.text)")
        _ = t.request("PATCH", "/api/entries/\(entry.id)", token: alice, json: #"{"visibility":"private"}"#)
        #expect(t.request("GET", item.url).status == 404)
        #expect(t.request("GET", "/entries/\(entry.id)").status == 404)
        _ = t.request("PATCH", "/api/entries/\(entry.id)", token: alice, json: #"{"visibility":"public"}"#)
        #expect(t.request("GET", item.url).status == 200)
        _ = t.request("DELETE", "/api/entries/\(entry.id)", token: alice)
        #expect(t.request("GET", item.url).status == 404)
    }

    @Test func anImageAnyoneMaySeeIsServedAgainFromTheCacheWithItsHeaders() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let item = try upload(t, alice, TestImages.jpeg, type: "image/jpeg").decoded(MediaItem.self)
        _ = t.request("POST", "/api/entries", token: alice, json: #"{"title":"walk","body":"![the path](\#(item.url))"}"#)
        let own = t.request("GET", item.url, token: alice)
        let first = t.request("GET", item.url)
        let hits = t.app.responseCache!.counts.hits
        let again = t.request("GET", item.url)
        #expect(t.app.responseCache!.counts.hits == hits + 1)
        #expect(again.status == 200 && again.body == first.body && again.body == own.body && again.headers == first.headers)
        #expect(Array(again.headers.map(\.name.rawName)) == ["Content-Type", "X-Content-Type-Options", "ETag", "Cache-Control"])
        #expect(again.headers["ETag"] == "\"\(item.id)\"" && again.headers["Cache-Control"] == "public, max-age=31536000, immutable")
        let notModified = t.request("GET", item.url, headers: [("If-None-Match", "\"\(item.id)\"")])
        #expect(notModified.status == 304 && notModified.body.isEmpty)
        #expect(Array(notModified.headers.map(\.name.rawName)) == ["X-Content-Type-Options", "ETag", "Cache-Control"])
        // A token's answer is never the kept one: it says it varies by token.
        #expect(own.headers["Vary"] == "Authorization" && again.headers["Vary"] == nil)
    }

    @Test func theEntryPageShowsTheImageAtItsSizeAndTheFeedAbsolute() throws {
        let t = try TestApplication(configuration: .init(publicURL: "https://diary.example"))
        let alice = try t.addUser("alice")
        let item = try upload(t, alice, TestImages.png).decoded(MediaItem.self)
        let entry = try t.request("POST", "/api/entries", token: alice, json: #"{"title":"walk","body":"![the path](\#(item.url))"}"#)
            .decoded(Entry.self)
        let page = t.request("GET", "/entries/\(entry.id)").text
        #expect(page.contains(#"<img src="\#(item.url)" alt="the path" width="6" height="4" loading="lazy""#), "\(page)")
        let feed = t.request("GET", "/feed.atom").text
        #expect(feed.contains("src=&quot;https://diary.example\(item.url)&quot;"), "\(feed)")
    }

    @Test func aFormWithAFileFieldIsAnUploadToo() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        func form(_ field: String) -> [UInt8] {
            Array("--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--XyZ\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"red.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
                + TestImages.png + Array("\r\n--XyZ--\r\n".utf8)
        }
        let uploaded = t.request("POST", "/api/media", token: alice, contentType: "multipart/form-data; boundary=XyZ", body: form("file"))
        #expect(uploaded.status == 201, "\(uploaded.text)")
        #expect(try uploaded.decoded(MediaItem.self).width == 6)
        let wrongField = t.request("POST", "/api/media", token: alice, contentType: "multipart/form-data; boundary=XyZ", body: form("photo"))
        #expect(wrongField.status == 400 && wrongField.problem?.errors?.first?.field == "file", "\(wrongField.text)")
        #expect(t.request("POST", "/api/media", token: alice, contentType: "multipart/form-data", body: form("file")).status == 400)
    }

    @Test func refusalsAreProblemsAndStoreNothing() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice")
        let cases: [(String, [UInt8], String, Int)] = [
            ("svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8), "image/svg+xml", 415),
            ("html as an image", Array("<html><body>hi</body></html>".utf8), "image/png", 415),
            ("json", Array("{}".utf8), "application/json", 415),
            ("no type", TestImages.png, "", 415),
            ("truncated", Array(TestImages.jpeg.prefix(300)), "image/jpeg", 422),
            ("empty", [], "image/png", 422),
        ]
        for (name, bytes, type, status) in cases {
            let response = t.request("POST", "/api/media", token: alice, contentType: type.isEmpty ? nil : type, body: bytes)
            #expect(response.status.code == status, "\(name): \(response.text)")
            #expect(response.problem?.status == status, "\(name)")
        }
        #expect(try t.request("GET", "/api/media", token: alice).decoded(MediaPage.self).total == 0)
        #expect(t.request("POST", "/api/media", contentType: "image/png", body: TestImages.png).status == 401)
    }

    @Test func theQuotaIsA507AndUploadsPastTheLimitAreRefusedFromTheirHead() throws {
        let t = try TestApplication(configuration: .init(mediaLimits: MediaLimits(quotaBytes: 200)))
        let alice = try t.addUser("alice")
        #expect(upload(t, alice, TestImages.png).status == 201)
        let refused = upload(t, alice, TestImages.jpeg, type: "image/jpeg")
        #expect(refused.status == 507 && refused.problem?.type == "/problems/media-quota-exceeded", "\(refused.text)")
        #expect(try t.request("GET", "/api/media", token: alice).decoded(MediaPage.self).total == 1)
        // Checked before processing: once the quota is filled to the byte, even bytes that are
        // no image are a 507, not the 415 that processing them would answer.
        let kept = try t.request("GET", "/api/media", token: alice).decoded(MediaPage.self).media[0].bytes
        let full = try TestApplication(configuration: .init(mediaLimits: MediaLimits(quotaBytes: .init(kept))))
        let bob = try full.addUser("bob")
        #expect(upload(full, bob, Array("no image at all".utf8)).status == 415)
        #expect(upload(full, bob, TestImages.png).status == 201)
        let refusedFirst = upload(full, bob, Array("no image at all".utf8))
        #expect(refusedFirst.status == 507, "\(refusedFirst.text)")

        // The larger limit is for a token that may write: without one, or with a read token,
        // an upload keeps the transport's limit and is refused from its head past it.
        func head(_ token: String?) -> Request {
            var headers: HTTPFields = [.contentType: "image/jpeg"]
            if let token { headers[.authorization] = "Bearer \(token)" }
            return Request(method: .post, target: "/api/media", headers: headers)
        }
        let reader = try t.request("POST", "/api/tokens", token: alice, json: #"{"name":"r","scope":"read"}"#).decoded(CreatedToken.self).token
        #expect(t.app.maxBodySize(for: head(alice)) == UploadMedia.maximumBytes)
        #expect(t.app.maxBodySize(for: head(nil)) == nil)
        #expect(t.app.maxBodySize(for: head("not-a-token")) == nil)
        #expect(t.app.maxBodySize(for: head(reader)) == nil)
        #expect(t.app.maxBodySize(for: Request(method: .post, target: "/api/entries", headers: [.authorization: "Bearer \(alice)"])) == nil)
    }

    @Test func aKeyAnswersTheFirstUploadAgainAndTheListAndDeleteAreTheOwners() throws {
        let t = try TestApplication()
        let alice = try t.addUser("alice"), bob = try t.addUser("bob")
        let first = upload(t, alice, TestImages.png, headers: [("Idempotency-Key", "k1")])
        let again = upload(t, alice, TestImages.png, headers: [("Idempotency-Key", "k1")])
        #expect(again.status == 201 && again.headers["Idempotent-Replayed"] == "true")
        #expect(try again.decoded(MediaItem.self) == first.decoded(MediaItem.self))
        #expect(upload(t, alice, TestImages.jpeg, type: "image/jpeg", headers: [("Idempotency-Key", "k1")]).status == 422)

        let item = try first.decoded(MediaItem.self)
        let list = try t.request("GET", "/api/media", token: alice).decoded(MediaPage.self)
        #expect(list.media.map(\.id) == [item.id] && list.media.first?.entryIDs == [])
        #expect(try t.request("GET", "/api/media", token: bob).decoded(MediaPage.self).total == 0)
        #expect(t.request("DELETE", "/api/media/\(item.id)", token: bob).status == 404)
        #expect(t.request("DELETE", "/api/media/xyz", token: alice).status == 400)
        #expect(t.request("DELETE", "/api/media/\(item.id)", token: alice).status == 204)
        #expect(t.request("GET", item.url, token: alice).status == 404)
    }
}
