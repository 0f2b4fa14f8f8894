import DiaryAPI
import Testing

/// One rule for a query parameter sent twice, on the API and the pages alike: a list by
/// design (`tag`) may repeat; any other parameter is a 400 that names it.
@Suite struct RepeatedQueryParameterTests {
    @Test func theAPIRefusesARepeatedParameterByName() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        try PagesTests.post(t, token, title: "apples and bananas", tags: ["fruit", "food"])
        for (target, name) in [
            ("/api/entries?q=apples&q=bananas", "q"), ("/api/entries?page=1&per_page=5&page=2", "page"),
            ("/api/entries?order=newest&order=newest", "order"), ("/api/entries?since=2026-01-01&since=2026-01-01", "since"),
            ("/api/tags?cursor=a&cursor=b", nil), ("/api/export?format=json&format=ndjson", "format"),
        ] {
            let response = t.request("GET", target, token: token)
            guard let name else {
                // A parameter the endpoint does not read is ignored, however often it comes.
                #expect(response.status == 200, "\(target)")
                continue
            }
            #expect(response.status == 400, "\(target)")
            let problem = try #require(response.problem, "\(target): \(response.text)")
            #expect(problem.errors?.map(\.field) == [name], "\(target)")
            #expect(problem.detail == "\(name) must be given at most once", "\(target)")
        }
        // A list by design repeats: every tag must match.
        let tagged = t.request("GET", "/api/entries?tag=fruit&tag=food")
        #expect(tagged.status == 200)
        #expect(try tagged.decoded(EntryPage.self).entries.count == 1)
    }

    @Test func thePagesRefuseARepeatedParameterByName() throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        try PagesTests.post(t, token, title: "apples and bananas")
        for (target, name) in [("/search?q=apples&q=bananas", "q"), ("/?cursor=a&cursor=b", "cursor"), ("/style.css?v=1&v=1", "v")] {
            let response = t.request("GET", target)
            #expect(response.status == 400, "\(target)")
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8", "\(target)")
            #expect(response.text.contains("\(name) must be given at most once"), "\(target): \(response.text)")
        }
        #expect(t.request("GET", "/search?q=apples").status == 200)
    }
}
