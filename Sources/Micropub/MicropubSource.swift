import DiaryAPI
import DiaryPages

/// What the endpoint answers to queries (§3.7): a post's source, the configuration, and the
/// URLs that name posts and diaries. `site` is the site's absolute URL, no trailing slash.
public enum MicropubSource {
    /// `q=source`: the entry as an h-entry; only `properties` when some are named, and then
    /// without `type`, as §3.7.4 shows.
    public static func source(of entry: Entry, properties requested: [String], site: String) -> [UInt8] {
        var all: [String: MicropubJSON] = [
            "name": .array([.string(entry.title)]),
            "content": .array([.string(entry.body)]),
            "category": .array(entry.tags.map(MicropubJSON.string)),
            "published": .array([.string(RFC3339.string(from: entry.created))]),
            "post-status": .array([.string(entry.draft ? "draft" : "published")]),
            "visibility": .array([.string(entry.visibility.rawValue)]),
            "url": .array([.string(entryURL(entry.id, site: site))]),
        ]
        if entry.tags.isEmpty { all["category"] = nil }
        guard !requested.isEmpty else {
            return MicropubJSON.encode(["type": .array([.string("h-entry")]), "properties": .object(all)])
        }
        return MicropubJSON.encode(["properties": .object(all.filter { requested.contains($0.key) })])
    }

    /// `q=config`: the media endpoint, no syndication targets, the caller's diaries as
    /// destinations, the queries answered and the kinds of post made.
    public static func config(mediaEndpoint: String, destinations: [Diary], site: String) -> [UInt8] {
        MicropubJSON.encode([
            "media-endpoint": .string(mediaEndpoint),
            "syndicate-to": .array([]),
            "destination": destinationList(destinations, site: site),
            "q": .array(["config", "source", "syndicate-to", "destination"].map(MicropubJSON.string)),
            "post-types": .array([("note", "Note"), ("article", "Article"), ("photo", "Photo")].map { type, name in
                MicropubJSON.object(["type": .string(type), "name": .string(name)])
            }),
        ])
    }

    /// `q=syndicate-to`: this server posts nowhere else.
    public static let syndicateTo = MicropubJSON.encode(["syndicate-to": .array([])])

    /// `q=destination`: the caller's diaries.
    public static func destinations(_ diaries: [Diary], site: String) -> [UInt8] {
        MicropubJSON.encode(["destination": destinationList(diaries, site: site)])
    }

    static func destinationList(_ diaries: [Diary], site: String) -> MicropubJSON {
        .array(diaries.map { .object(["uid": .string(diaryURL($0.id, site: site)), "name": .string($0.title)]) })
    }

    // MARK: URLs

    public static func entryURL(_ id: Int64, site: String) -> String { site + SitePaths.entry(id) }
    public static func diaryURL(_ id: Int64, site: String) -> String { site + SitePaths.diary(id) }

    /// The entry a URL names: the site's own `/entries/{id}` page, absolute or as a path.
    public static func entryID(from url: String, site: String) -> Int64? {
        id(in: url, site: site) { SitePaths.entry($0) }
    }

    /// The diary a destination `uid` names.
    public static func diaryID(from uid: String, site: String) -> Int64? {
        id(in: uid, site: site) { SitePaths.diary($0) }
    }

    private static func id(in url: String, site: String, path: (Int64) -> String) -> Int64? {
        let local = url.hasPrefix(site + "/") ? String(url.dropFirst(site.count)) : url
        guard local.hasPrefix("/"), let digits = local.split(separator: "/").last, let id = Int64(digits), id > 0,
              path(id) == local else { return nil }
        return id
    }
}
