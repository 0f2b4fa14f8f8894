/// The image formats Diary accepts, each decided by libvips from the file's bytes (its loader's
/// `is_a` test on the magic numbers), never from a name or a `Content-Type`.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, gif, heif

    /// The libvips loader class that reads the format; every other loader stays blocked
    /// (`VipsImageLibrary.start`), so a file libvips could read some other way is refused.
    var loaderClass: String {
        switch self {
        case .jpeg: "VipsForeignLoadJpeg"
        case .png: "VipsForeignLoadPng"
        case .webp: "VipsForeignLoadWebp"
        case .gif: "VipsForeignLoadNsgif"
        case .heif: "VipsForeignLoadHeif"
        }
    }

    /// The format a buffer loader's class (`VipsForeignLoadJpegBuffer`, as
    /// `vips_foreign_find_load_buffer` names it) reads, or nil for every loader outside the allow-list.
    init?(bufferLoaderClass: String) {
        guard let format = Self.allCases.first(where: { $0.loaderClass + "Buffer" == bufferLoaderClass }) else { return nil }
        self = format
    }

    /// The `Content-Type` of the format as uploaded (`image/heic` covers HEIC and AVIF alike:
    /// it is only ever used to name the input, which is re-encoded).
    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .heif: "image/heic"
        }
    }
}

/// What Diary keeps: JPEG for photos; PNG for what was lossless graphics (PNG and GIF input) and
/// for anything with transparency, since JPEG has none and smears text and line art.
public enum StoredImageFormat: String, Sendable, CaseIterable {
    case jpeg, png

    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }

    /// The stored format for an input of `format`, with or without an alpha channel.
    static func choose(for format: ImageFormat, hasAlpha: Bool) -> StoredImageFormat {
        if hasAlpha { return .png }
        switch format {
        case .png, .gif: return .png
        case .jpeg, .webp, .heif: return .jpeg
        }
    }
}
