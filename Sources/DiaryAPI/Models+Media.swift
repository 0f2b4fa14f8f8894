import Foundation

/// An uploaded image as the API shows it (`POST /api/media`, `GET /api/media`).
public struct MediaItem: Codable, Sendable, Equatable {
    public var id: String
    /// `image/jpeg` or `image/png`: what was kept, not what was uploaded.
    public var contentType: String
    public var width: Int
    public var height: Int
    /// The size of the kept file.
    public var bytes: Int
    public var created: Date
    /// The caller's entries whose bodies link to it, by id; in lists only (nil: not encoded).
    public var entryIDs: [Int64]?

    /// Where it is served: `/media/<id>`, the path authors put in Markdown. Made from the id,
    /// not kept beside it, so that the two can never disagree.
    public var url: String { MediaID.pathPrefix + id }

    public init(
        id: String, contentType: String, width: Int, height: Int, bytes: Int, created: Date, entryIDs: [Int64]? = nil
    ) {
        self.id = id
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

    /// `url` is read past: it follows from `media_id`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
            contentType: try container.decode(String.self, forKey: .contentType),
            width: try container.decode(Int.self, forKey: .width),
            height: try container.decode(Int.self, forKey: .height),
            bytes: try container.decode(Int.self, forKey: .bytes),
            created: try container.decode(Date.self, forKey: .created),
            entryIDs: try container.decodeIfPresent([Int64].self, forKey: .entryIDs)
        )
    }

    /// Written by hand to send the derived `url` too; an absent `entryIDs` is left out, as before.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(url, forKey: .url)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(created, forKey: .created)
        try container.encodeIfPresent(entryIDs, forKey: .entryIDs)
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
        (nextPage, prevPage) = PageRequest(page: page, perPage: perPage).neighbours(total: total)
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
