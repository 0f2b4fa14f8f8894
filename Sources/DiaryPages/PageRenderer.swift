import DiaryAPI
import Foundation

/// Writes the reading pages as HTML5 bytes: every page the same frame (header, main, footer),
/// every value from an author escaped, every body through `SafeMarkdown`. No script: the pages
/// are read without JavaScript, and their Content-Security-Policy allows none.
public struct PageRenderer: Sendable {
    /// The site's name, in every title and header.
    public var siteName: String

    public init(siteName: String = "Diary") {
        self.siteName = siteName
    }

    /// The parts of the frame a page chooses.
    struct Frame {
        var title: String
        /// Nil on the home page: its title is the site's name alone.
        var showsSiteNameInTitle = true
        var feed: (title: String, path: String)?
        /// Kept out of search engines: unlisted entries, searches, errors.
        var noindex = false
        /// The navigation item this page is, for `aria-current`.
        var current: NavigationItem?
    }

    enum NavigationItem {
        case newest, search
    }

    /// The whole document around `main`, which writes the inside of `<main>`.
    func document(_ frame: Frame, main: (inout String) -> Void) -> [UInt8] {
        var out = ""
        out.reserveCapacity(16 << 10)
        out += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        out += "<meta name=\"color-scheme\" content=\"light dark\">\n"
        if frame.noindex { out += "<meta name=\"robots\" content=\"noindex\">\n" }
        out += "<title>"
        HTMLEscaping.append(frame.showsSiteNameInTitle ? "\(frame.title) · \(siteName)" : frame.title, to: &out)
        out += "</title>\n<link rel=\"stylesheet\" href=\"\(Stylesheet.versionedPath)\">\n"
        // Where Micropub apps post (issue 23): they look for it on any page of the site.
        out += "<link rel=\"micropub\" href=\"\(SitePaths.micropub)\">\n"
        if let feed = frame.feed {
            out += "<link rel=\"alternate\" type=\"application/atom+xml\" title=\""
            HTMLEscaping.append(feed.title, to: &out)
            out += "\" href=\""
            HTMLEscaping.append(feed.path, to: &out)
            out += "\">\n"
        }
        out += "</head>\n<body>\n<a class=\"skip-link\" href=\"#main\">Skip to content</a>\n"
        out += "<header class=\"site-header\">\n<div class=\"wrap\">\n<p class=\"site-name\"><a href=\"/\">"
        HTMLEscaping.append(siteName, to: &out)
        out += "</a></p>\n<nav class=\"site-nav\" aria-label=\"Site\">\n<ul>\n"
        out += "<li><a href=\"/\"\(frame.current == .newest ? " aria-current=\"page\"" : "")>Newest</a></li>\n"
        out += "<li><a href=\"\(SitePaths.search)\"\(frame.current == .search ? " aria-current=\"page\"" : "")>Search</a></li>\n"
        out += "<li><a href=\"\(SitePaths.feed)\">Feed</a></li>\n</ul>\n</nav>\n</div>\n</header>\n"
        out += "<main id=\"main\" class=\"wrap\">\n"
        main(&out)
        out += "</main>\n<footer class=\"site-footer\">\n<div class=\"wrap\">\n<p>"
        HTMLEscaping.append(siteName, to: &out)
        out += " · public entries of every diary · <a href=\"\(SitePaths.feed)\">Atom feed</a></p>\n</div>\n</footer>\n</body>\n</html>\n"
        return Array(out.utf8)
    }

    /// `<time datetime="RFC 3339">text</time>`.
    static func time(_ date: Date, text: String, into out: inout String) {
        out += "<time datetime=\"\(RFC3339.string(from: date))\">"
        HTMLEscaping.append(text, to: &out)
        out += "</time>"
    }

    /// The tags as links to their pages, or nothing without tags.
    static func tags(_ tags: [String], into out: inout String) {
        guard !tags.isEmpty else { return }
        out += "<ul class=\"tag-list\" aria-label=\"Tags\">"
        for tag in tags {
            out += "<li><a class=\"tag\" rel=\"tag\" href=\""
            HTMLEscaping.append(SitePaths.tag(tag), to: &out)
            out += "\">"
            HTMLEscaping.append(tag, to: &out)
            out += "</a></li>"
        }
        out += "</ul>\n"
    }

    /// `<a href="path">text</a>` with both escaped, and extra attributes as given (trusted text).
    static func link(_ path: String, _ text: String, attributes: String = "", into out: inout String) {
        out += "<a\(attributes) href=\""
        HTMLEscaping.append(path, to: &out)
        out += "\">"
        HTMLEscaping.append(text, to: &out)
        out += "</a>"
    }
}
