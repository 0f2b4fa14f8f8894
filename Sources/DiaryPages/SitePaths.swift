import ByteEncodings

/// The paths of the reading pages and feeds, made in one place for the templates and the
/// server's routes. Relative to the site's root: pages link with these, feeds put the public
/// URL in front.
public enum SitePaths {
    public static let home = "/"
    public static let search = "/search"
    public static let feed = "/feed.atom"
    public static let stylesheet = "/style.css"

    public static func home(cursor: String?) -> String {
        query(home, [("cursor", cursor)])
    }

    public static func entry(_ id: Int64) -> String {
        "/entries/\(id)"
    }

    public static func diary(_ id: Int64, cursor: String? = nil) -> String {
        query("/diaries/\(id)", [("cursor", cursor)])
    }

    public static func diaryFeed(_ id: Int64) -> String {
        "/diaries/\(id)/feed.atom"
    }

    /// A tag's page; the tag is one path segment, percent-encoded.
    public static func tag(_ tag: String, cursor: String? = nil) -> String {
        query("/tags/" + PercentEncoding.encode(tag), [("cursor", cursor)])
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
