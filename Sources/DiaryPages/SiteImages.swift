import DiaryAPI

/// The site's own images (`/media/<id>`) as a page or feed shows them: the only relative image
/// URLs allowed (any other relative URL stays refused), with the width and height the store
/// keeps, so that the text does not jump when the picture arrives, and written absolute in
/// feeds, which a reader fetches from elsewhere.
public struct SiteImages: Sendable {
    /// Width and height by media id, for the images the reader may see.
    public var sizes: [String: (width: Int, height: Int)]
    /// What goes before `/media/<id>`: "" on pages, the site's public URL in feeds.
    public var base: String

    public init(sizes: [String: (width: Int, height: Int)] = [:], base: String = "") {
        self.sizes = sizes
        self.base = base
    }

    /// An image URL from an entry's Markdown, when it is one of the site's images: the URL to
    /// write, and the image's size when known. A full URL of the site stays as written.
    func resolve(_ src: String) -> (url: String, size: (width: Int, height: Int)?)? {
        guard src.hasPrefix(MediaID.pathPrefix), let id = MediaID(src.dropFirst(MediaID.pathPrefix.count)) else { return nil }
        return (base + id.url, sizes[id.text])
    }
}
