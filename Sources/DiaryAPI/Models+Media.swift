import Foundation

/// An uploaded image as the API shows it (`POST /api/media`, `GET /api/media`).
public struct MediaItem: Codable, Sendable, Equatable {
    public var id: String
    /// Where it is served: `/media/<id>`, the path authors put in Markdown.
    public var url: String
    /// `image/jpeg` or `image/png`: what was kept, not what was uploaded.
    public var contentType: String
    public var width: Int
    public var height: Int
    /// The size of the kept file.
    public var bytes: Int
    public var created: Date
    /// The caller's entries whose bodies link to it, by id; in lists only (nil: not encoded).
    public var entryIDs: [Int64]?

    public init(
        id: String, contentType: String, width: Int, height: Int, bytes: Int, created: Date, entryIDs: [Int64]? = nil
    ) {
        self.id = id
        self.url = MediaID.pathPrefix + id
        self.contentType = contentType
        self.width = width
        self.height = height
        self.bytes = bytes
        self.created = created
        self.entryIDs = entryIDs
    }

    enum CodingKeys: String, CodingKey {
        case id = "media_id", url, contentType = "content_type", width, height, bytes, created, entryIDs = "entry_ids"
    }
}

/// One page of the caller's uploads, newest first, paged like entries.
public struct MediaPage: Codable, Sendable, Equatable {
    public var media: [MediaItem]
    public var page: Int
    public var perPage: Int
    public var total: Int
    public var nextPage: Int?
    public var prevPage: Int?

    public init(media: [MediaItem], page: Int, perPage: Int, total: Int) {
        self.media = media
        self.page = page
        self.perPage = perPage
        self.total = total
        let (seen, overflow) = page.multipliedReportingOverflow(by: perPage)
        self.nextPage = !overflow && seen < total ? page + 1 : nil
        self.prevPage = page > 1 ? page - 1 : nil
    }

    enum CodingKeys: String, CodingKey {
        case media, page, perPage = "per_page", total, nextPage = "next_page", prevPage = "prev_page"
    }

    /// Written by hand so that an absent neighbour page is `null`, not a missing key, as in `EntryPage`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(media, forKey: .media)
        try container.encode(page, forKey: .page)
        try container.encode(perPage, forKey: .perPage)
        try container.encode(total, forKey: .total)
        try container.encode(nextPage, forKey: .nextPage)
        try container.encode(prevPage, forKey: .prevPage)
    }
}
