import DiaryAPI
import Testing

/// Foundation's decoder takes some text that is not JSON; the API answers all of it with 400.
@Suite struct StrictJSONTests {
    @Test(arguments: [
        #"{"title":"t","body":"",}"#, #"{"title":"t",,"body":""}"#, #"{"title":"t" "body":""}"#,
        #"{"title":"t","body":"", "x":[1,]}"#, #"{"title":'t',"body":""}"#, #"{"title":"t","body":"","x":01}"#,
        #"{"title":"t","body":"","x":1.}"#, #"{"title":"t","body":"","x":NaN}"#, "{\"title\":\"t\",\"body\":\"a\u{9}b\"}",
        #"{"title":"t","body":"\x"}"#, #"{"title":"t","body":""} {}"#, #"// c"#, #"{"title":"t","body":"","x":tru}"#,
        "{\"title\":\"t\",\"body\":\"\"}\u{0}",
    ])
    func textThatIsNotJSONIs400AndWritesNothing(json: String) throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        let response = t.request("POST", "/api/entries", token: token, json: json)
        #expect(response.problem?.status == 400, "\(json)")
        #expect(try t.request("GET", "/api/entries").decoded(EntryPage.self).total == 0)
    }

    @Test(arguments: [
        #"{"title":"t","body":""}"#, " \n{ \"title\" : \"t\" , \"body\" : \"a\\\"b\\u00e9\\n\" }\r\n",
        #"{"title":"t","body":"","x":[-0.5e+10, 0, 1E2, true, false, null, {"y":[]}]}"#,
    ])
    func jsonIsAccepted(json: String) throws {
        let t = try TestApplication()
        let token = try t.addUser("alice")
        #expect(t.request("POST", "/api/entries", token: token, json: json).status == 201, "\(json)")
    }
}
