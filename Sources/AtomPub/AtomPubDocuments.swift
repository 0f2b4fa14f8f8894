import DiaryAPI
import DiaryPages
import Foundation

/// The documents AtomPub answers with, as bytes: the service document, a collection's feed
/// and a member entry. The elements an entry shares with the reading feeds are written by
/// `AtomFeed.appendCommonElements`; what AtomPub adds is written here: the Markdown as
/// `content type="text/x-markdown"`, `app:edited`, `app:control/app:draft` and the edit link.
/// `updated` is the entry's own date (what the client sends as `atom:updated`), and
/// `app:edited` when it last changed, as Hatena Blog answers.
public struct AtomPubDocuments: Sendable {
    /// The site's public URL without a trailing slash, in front of every link.
    public var baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    public static let serviceMediaType = "application/atomsvc+xml"
    public static let entryMediaType = "application/atom+xml;type=entry"
    public static let feedMediaType = "application/atom+xml"

    private static let declaration = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    private static let namespaces = "xmlns=\"http://www.w3.org/2005/Atom\" xmlns:app=\"http://www.w3.org/2007/app\""

    /// The service document: one workspace, the caller's, with each of their diaries as a
    /// collection of entries.
    public func service(owner: String, diaries: [Diary]) -> [UInt8] {
        var out = Self.declaration
        out += "<service xmlns=\"http://www.w3.org/2007/app\" xmlns:atom=\"http://www.w3.org/2005/Atom\">\n"
        out += "<workspace>\n<atom:title>\(escaped(owner))</atom:title>\n"
        for diary in diaries {
            out += "<collection href=\"\(escaped(baseURL + AtomPubPaths.collection(diary.id)))\">\n"
            out += "<atom:title>\(escaped(diary.title))</atom:title>\n"
            out += "<accept>\(Self.entryMediaType)</accept>\n</collection>\n"
        }
        out += "</workspace>\n</service>\n"
        return Array(out.utf8)
    }

    /// One page of a diary's collection, newest first; `nextPath` is the page after it.
    public func collection(diary: Diary, entries: [Entry], nextPath: String?) -> [UInt8] {
        let selfURL = baseURL + AtomPubPaths.collection(diary.id)
        var out = Self.declaration
        out += "<feed \(Self.namespaces)>\n"
        AtomFeed.appendFeedElements(
            title: diary.title, updated: diary.updated, selfURL: selfURL, alternateURL: baseURL + SitePaths.diary(diary.id), to: &out
        )
        out += "<author><name>\(escaped(diary.owner))</name></author>\n"
        out += "<link rel=\"first\" type=\"\(Self.feedMediaType)\" href=\"\(escaped(selfURL))\"/>\n"
        if let nextPath {
            out += "<link rel=\"next\" type=\"\(Self.feedMediaType)\" href=\"\(escaped(baseURL + nextPath))\"/>\n"
        }
        for entry in entries {
            out += "<entry>\n"
            appendMemberElements(of: entry, to: &out)
            out += "</entry>\n"
        }
        out += "</feed>\n"
        return Array(out.utf8)
    }

    /// A member entry on its own, as GET, POST and PUT answer.
    public func entry(_ entry: Entry) -> [UInt8] {
        var out = Self.declaration
        out += "<entry \(Self.namespaces)>\n"
        appendMemberElements(of: entry, to: &out)
        out += "</entry>\n"
        return Array(out.utf8)
    }

    private func appendMemberElements(of entry: Entry, to out: inout String) {
        AtomFeed.appendCommonElements(of: entry, updated: entry.created, baseURL: baseURL, to: &out)
        let edit = escaped(baseURL + AtomPubPaths.member(diaryID: entry.diaryID, entryID: entry.id))
        out += "<link rel=\"edit\" href=\"\(edit)\"/>\n"
        out += "<app:edited>\(RFC3339.string(from: entry.updated))</app:edited>\n"
        out += "<app:control><app:draft>\(entry.draft ? "yes" : "no")</app:draft></app:control>\n"
        // A carriage return as a reference: a parser turns a literal CR LF into LF, and the
        // client's copy of the body must be the stored one.
        let body = escaped(entry.body).replacingOccurrences(of: "\r", with: "&#13;")
        out += "<content type=\"text/x-markdown\">\(body)</content>\n"
    }

    private func escaped(_ text: String) -> String {
        HTMLEscaping.escape(text)
    }
}
