import DiaryAPI

/// Which entries the browser lists: all, one diary's, one tag's, and what a search narrows them to.
public struct Listing: Sendable, Equatable {
    public var diaryID: Int64?
    public var tag: String?
    /// The search query, as typed after `/` or given with `--search`.
    public var query: String?

    public init(diaryID: Int64? = nil, tag: String? = nil, query: String? = nil) {
        self.diaryID = diaryID
        self.tag = tag
        self.query = query
    }

    /// "all entries", "diary 3 · #travel · search "京都"".
    public var title: String {
        var parts: [String] = []
        if let diaryID { parts.append("diary \(diaryID)") }
        if let tag { parts.append("#" + tag) }
        if let query { parts.append("search \"\(query)\"") }
        return parts.isEmpty ? "all entries" : parts.joined(separator: " · ")
    }
}

/// Where the browser's entries come from; the `diary` command answers with its API client.
public protocol EntrySource: Sendable {
    /// Where the entries come from, for the status line ("http://127.0.0.1:8080").
    var name: String { get }

    /// The page of `listing` after `cursor` (nil: the first), newest first.
    func page(of listing: Listing, after cursor: String?, count: Int) async throws(EntrySourceError) -> EntryPage

    /// Width and height, by id, of the site's images `entries` show that the reader may see;
    /// those it cannot find are left out (the image then shows without its size).
    func imageSizes(in entries: [Entry]) async -> [String: (width: Int, height: Int)]
    /// Brings the source up to date before a reload asked with `r` (a replica syncs with its
    /// server); a failure is the status line's message, and the list stays as it was.
    func refresh() async throws(EntrySourceError)
}

extension EntrySource {
    /// A source that knows no sizes: images show without them.
    public func imageSizes(in entries: [Entry]) async -> [String: (width: Int, height: Int)] { [:] }

    /// A source that is always current (the server itself) has nothing to bring up to date.
    public func refresh() async throws(EntrySourceError) {}
}

/// A failed fetch, already in the one line a person reads in the status line.
public struct EntrySourceError: Error, Sendable, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}
