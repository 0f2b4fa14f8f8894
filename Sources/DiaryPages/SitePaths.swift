import ByteEncodings
import DiaryAPI

/// The paths of the reading pages and feeds, defined once: the server's router matches
/// `SitePaths.Route`'s templates, and the templates' links render the same ones, as the API's
/// endpoints render their `path`. Relative to the site's root: pages link with these, feeds
/// put the public URL in front.
public enum SitePaths {
    /// Each page's and feed's path, with its parameters named.
    public enum Route {
        public static let home: PathTemplate = "/"
        public static let diary: PathTemplate = "/diaries/{diary_id}"
        public static let diaryFeed: PathTemplate = "/diaries/{diary_id}/feed.atom"
        public static let entry: PathTemplate = "/entries/{entry_id}"
        public static let tag: PathTemplate = "/tags/{tag}"
        public static let search: PathTemplate = "/search"
        public static let feed: PathTemplate = "/feed.atom"
        public static let stylesheet: PathTemplate = "/style.css"
        /// Not a page: the Micropub endpoint every page names, for editors' apps to find.
        public static let micropub: PathTemplate = "/micropub"
    }

    public static let home = Route.home.render([:])
    public static let search = Route.search.render([:])
    public static let feed = Route.feed.render([:])
    public static let stylesheet = Route.stylesheet.render([:])
    public static let micropub = Route.micropub.render([:])

    public static func home(cursor: String?) -> String {
        query(home, [("cursor", cursor)])
    }

    public static func entry(_ id: Int64) -> String {
        Route.entry.render(["entry_id": String(id)])
    }

    public static func diary(_ id: Int64, cursor: String? = nil) -> String {
        query(Route.diary.render(["diary_id": String(id)]), [("cursor", cursor)])
    }

    public static func diaryFeed(_ id: Int64) -> String {
        Route.diaryFeed.render(["diary_id": String(id)])
    }

    /// A tag's page; the tag is one path segment, percent-encoded.
    public static func tag(_ tag: String, cursor: String? = nil) -> String {
        query(Route.tag.render(["tag": tag]), [("cursor", cursor)])
    }

    public static func search(_ text: String?, cursor: String? = nil) -> String {
        query(search, [("q", text), ("cursor", cursor)])
    }

    /// `path` with the items that are not nil as its query string.
    static func query(_ path: String, _ items: [(String, String?)]) -> String {
        let present = items.compactMap { name, value in value.map { "\(name)=\(PercentEncoding.encode($0))" } }
        return present.isEmpty ? path : path + "?" + present.joined(separator: "&")
    }
}
