import Foundation
import Testing

/// A Micropub client from PyPI (`micropub` 0.0.9, pinned by scripts/test in a virtualenv)
/// against the real server: it finds the endpoint from the home page's `Link` header (as
/// requests parses it), creates a post with its `create_post`, reads it back with
/// `get_post` (`q=source`), and a read token's `create_post` is refused.
@Suite(.serialized) struct MicropubClientTests {
    /// The virtualenv's Python: `DIARY_TEST_MICROPUB_PYTHON` (scripts/test sets it), else the
    /// virtualenv an earlier run of scripts/test made.
    static var python: String {
        ProcessInfo.processInfo.environment["DIARY_TEST_MICROPUB_PYTHON"]
            ?? FileManager.default.currentDirectoryPath + "/.build/venv-micropub/bin/python"
    }

    static let script = #"""
        import json, sys
        import micropub, requests
        site, token, reader = sys.argv[1:4]
        home = requests.get(site + "/")
        endpoint = requests.compat.urljoin(site + "/", home.links["micropub"]["url"])
        client = micropub.Client(endpoint, token)
        client.create_post({"name": ["From Python"], "content": ["Posted with *micropub*."], "category": ["python", "Micro Pub"]})
        newest = requests.get(site + "/api/entries", headers={"Authorization": "Bearer " + token}).json()["entries"][0]
        source = client.get_post(site + "/entries/%d" % newest["entry_id"])
        try:
            micropub.Client(endpoint, reader).create_post({"content": ["refused"]})
            refused = False
        except micropub.PostNotCreated:
            refused = True
        print(json.dumps({"endpoint": endpoint, "status": source.status_code, "source": source.json(), "refused": refused}))
        """#

    @Test func aPyPIClientDiscoversPostsAndReadsBack() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python), "run scripts/test once: it makes .build/venv-micropub")
        let server = try ServerProcess()
        let token = try server.addUser("alice")
        let reader = try server.diary(["tokens", "add", "reader", "--read-only"], token: token)
        let readToken = try #require(reader.stdout.split(separator: "\n").last.map(String.init))
        let result = try run(URL(fileURLWithPath: Self.python), ["-c", Self.script, server.url, token, readToken])
        #expect(result.status == 0, "\(result.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(answer["endpoint"] as? String == server.url + "/micropub")
        #expect(answer["status"] as? Int == 200 && answer["refused"] as? Bool == true)
        let properties = (answer["source"] as? [String: Any])?["properties"] as? [String: [String]]
        #expect(properties?["name"] == ["From Python"] && properties?["content"] == ["Posted with *micropub*."])
        #expect(properties?["category"] == ["micro-pub", "python"])
        #expect(try server.diary(["list"], token: token).stdout.components(separatedBy: "From Python").count == 2)
    }
}
