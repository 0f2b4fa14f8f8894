import DiaryAPI
import Foundation

/// An image to keep: already processed (upright, scaled, stripped, re-encoded), never an
/// original upload.
public struct NewMedia: Sendable, Equatable {
    public var contentType: String
    public var width: Int
    public var height: Int
    public var data: [UInt8]

    public init(contentType: String, width: Int, height: Int, data: [UInt8]) {
        self.contentType = contentType
        self.width = width
        self.height = height
        self.data = data
    }
}

/// An image's width and height in pixels.
public struct MediaSize: Sendable, Equatable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A kept image as `DiaryStore.media(id:viewerID:)` answers it to someone who may see it.
public struct StoredMedia: Sendable, Equatable {
    public var item: MediaItem
    public var data: [UInt8]
    /// Whether anyone at all may see it (an entry linking to it is public or unlisted): caches
    /// may keep it then, and only then.
    public var isPublic: Bool

    public init(item: MediaItem, data: [UInt8], isPublic: Bool) {
        self.item = item
        self.data = data
        self.isPublic = isPublic
    }
}
