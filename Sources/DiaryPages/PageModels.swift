import DiaryAPI

/// What a list page shows: the newest entries, a diary's, a tag's or a search's, with the
/// addresses of the pages before and after it.
public struct EntryListing: Sendable {
    public enum Subject: Sendable {
        /// Every diary's newest public entries (`/`).
        case newest
        case diary(Diary)
        case tag(String)
        /// `query` nil: the empty search form. `problem`: why the query cannot be run (a 400).
        case search(query: String?, problem: String?)
    }

    public var subject: Subject
    public var entries: [Entry]
    /// Titles of the diaries the entries are in, by id.
    public var diaryTitles: [Int64: String]
    /// How many entries the list holds in all.
    public var total: Int
    /// True when `total` is a search's bound and more entries match ("1,000+ entries match").
    public var totalIsEstimate: Bool
    /// The page of newer entries, nil on the first page.
    public var newerPath: String?
    /// The page of older entries, nil on the last.
    public var olderPath: String?

    public init(
        subject: Subject, entries: [Entry], diaryTitles: [Int64: String] = [:], total: Int, totalIsEstimate: Bool = false, newerPath: String? = nil,
        olderPath: String? = nil
    ) {
        self.totalIsEstimate = totalIsEstimate
        self.subject = subject
        self.entries = entries
        self.diaryTitles = diaryTitles
        self.total = total
        self.newerPath = newerPath
        self.olderPath = olderPath
    }
}

/// What an entry's page shows: the entry, its diary, and its public neighbours in that diary.
public struct EntryReading: Sendable {
    public var entry: Entry
    public var diary: Diary?
    /// The diary's public entry just before this one (older), if any.
    public var previous: Entry?
    /// The diary's public entry just after this one (newer), if any.
    public var next: Entry?
    /// Width and height of the site's images the body shows, by media id.
    public var imageSizes: [String: (width: Int, height: Int)]

    public init(
        entry: Entry, diary: Diary?, previous: Entry? = nil, next: Entry? = nil, imageSizes: [String: (width: Int, height: Int)] = [:]
    ) {
        self.entry = entry
        self.diary = diary
        self.previous = previous
        self.next = next
        self.imageSizes = imageSizes
    }
}
