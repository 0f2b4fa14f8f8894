import DiaryAPI
import Foundation

/// An Atom 1.0 feed (RFC 4287) of entries: each with its absolute URL as its `id` (stable as
/// long as the public URL is), title, published and updated times, author, a link to its page
/// and its body as `content type="html"`: rendered by `SafeMarkdown`, then escaped as XML.
/// Relative links in bodies resolve against `xml:base`, the site's public URL.
public struct AtomFeed: Sendable {
    public var title: String
    /// The site's public URL without a trailing slash (`https://diary.example`).
    public var baseURL: String
    /// The feed's own path (`/feed.atom`), also its `id`.
    public var selfPath: String
    /// The page the feed follows (`/`).
    public var alternatePath: String
    /// When anything in the feed last changed.
    public var updated: Date
    public var entries: [Entry]

    public init(title: String, baseURL: String, selfPath: String, alternatePath: String, updated: Date, entries: [Entry]) {
        self.title = title
        self.baseURL = baseURL
        self.selfPath = selfPath
        self.alternatePath = alternatePath
        self.updated = updated
        self.entries = entries
    }

    public static let mediaType = "application/atom+xml"

    public func render() -> [UInt8] {
        var out = ""
        out.reserveCapacity(32 << 10)
        out += "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        out += "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"\(escaped(baseURL + "/"))\">\n"
        Self.appendFeedElements(title: title, updated: updated, selfURL: baseURL + selfPath, alternateURL: baseURL + alternatePath, to: &out)
        out += "<generator>Diary</generator>\n"
        for entry in entries {
            out += "<entry>\n"
            Self.appendCommonElements(of: entry, updated: entry.updated, baseURL: baseURL, to: &out)
            // The site's images absolute: not every reader honours `xml:base` in content.
            let html = SafeMarkdown.html(entry.body, images: SiteImages(base: baseURL))
            out += "<content type=\"html\">\(escaped(html))</content>\n</entry>\n"
        }
        out += "</feed>\n"
        return Array(out.utf8)
    }

    private func escaped(_ text: String) -> String {
        HTMLEscaping.escape(text)
    }

    /// A feed's own elements, written once for the reading feeds and AtomPub's collections: its
    /// `id` (its own absolute URL), `title`, `updated`, and its `self` and `alternate` links.
    public static func appendFeedElements(title: String, updated: Date, selfURL: String, alternateURL: String, to out: inout String) {
        let selfURL = HTMLEscaping.escape(selfURL)
        out += "<id>\(selfURL)</id>\n"
        out += "<title type=\"text\">\(HTMLEscaping.escape(title))</title>\n"
        out += "<updated>\(RFC3339.string(from: updated))</updated>\n"
        out += "<link rel=\"self\" type=\"\(mediaType)\" href=\"\(selfURL)\"/>\n"
        out += "<link rel=\"alternate\" type=\"text/html\" href=\"\(HTMLEscaping.escape(alternateURL))\"/>\n"
    }

    /// The elements every Atom entry of the site has, written once for the reading feeds and
    /// AtomPub's documents: `id` (the entry page's absolute URL), `title`, `published`,
    /// `updated` (the feeds give the time of the last change, AtomPub the entry's own date),
    /// `author`, the link to its page and its tags as categories.
    public static func appendCommonElements(of entry: Entry, updated: Date, baseURL: String, to out: inout String) {
        let url = HTMLEscaping.escape(baseURL + SitePaths.entry(entry.id))
        out += "<id>\(url)</id>\n"
        out += "<title type=\"text\">\(HTMLEscaping.escape(entry.title))</title>\n"
        out += "<published>\(RFC3339.string(from: entry.created))</published>\n"
        out += "<updated>\(RFC3339.string(from: updated))</updated>\n"
        out += "<author><name>\(HTMLEscaping.escape(entry.author))</name></author>\n"
        out += "<link rel=\"alternate\" type=\"text/html\" href=\"\(url)\"/>\n"
        for tag in entry.tags {
            out += "<category term=\"\(HTMLEscaping.escape(tag))\"/>\n"
        }
    }
}
