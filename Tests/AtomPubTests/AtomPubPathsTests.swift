import AtomPub
import Testing

/// `contains` decides which paths get problem+json and which answers are kept per credentials.
@Suite struct AtomPubPathsTests {
    @Test(arguments: [
        ("/atom", true), ("/atom/", true), ("/atom/diaries/1/entry", true), ("/atom/diaries/1/entry/2", true),
        ("/atomic", false), ("/ato", false), ("/", false), ("", false), ("/api/atom", false), ("/Atom", false),
    ])
    func aPathIsAtomPubsOnlyUnderTheServiceDocument(path: String, isAtomPub: Bool) {
        #expect(AtomPubPaths.contains(Substring(path)) == isAtomPub)
        // A slice of a longer text, as a request's path is of its target.
        let target = path + "?page=2"
        #expect(AtomPubPaths.contains(target.prefix(path.count)) == isAtomPub)
    }
}
