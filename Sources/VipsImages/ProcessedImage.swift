import CVips

/// An upload made safe to keep: decoded, turned upright by its EXIF orientation, scaled down to
/// `ImageLimits.maximumSide`, converted to sRGB and encoded again with no metadata at all (no
/// EXIF, GPS, XMP, IPTC, ICC or comment). Only this is stored, never the original bytes.
///
/// A GIF keeps its first frame only, as PNG: animation is rare in a diary, and one frame keeps
/// the pixel bound a bound (a GIF's frames multiply its memory and time).
public struct ProcessedImage: Sendable, Equatable {
    public let bytes: [UInt8]
    public let format: StoredImageFormat
    public let width: Int
    public let height: Int
    /// The format the upload was in.
    public let sourceFormat: ImageFormat

    public var contentType: String { format.contentType }

    /// Processes `upload`, refusing it as `ImageRefusal` when it is not an accepted image.
    /// Blocking and CPU-bound (tens to hundreds of milliseconds): call it off request threads
    /// that must stay quick, and bound how many run at once. `VipsImageLibrary.start` first.
    public static func process(_ upload: [UInt8], limits: ImageLimits = ImageLimits()) throws(ImageRefusal) -> ProcessedImage {
        try upload.withUnsafeImageBytes { buffer throws(ImageRefusal) in
            let header = try ImageHeader.read(buffer, limits: limits)
            // The thumbnail reads `buffer` lazily, while it is saved: both happen in this scope.
            let upright = try thumbnail(buffer, maximumSide: limits.maximumSide)
            defer { g_object_unref(upright) }
            let image = try convertedToSRGB(upright)
            defer { if image != upright { g_object_unref(image) } }
            let format = StoredImageFormat.choose(for: header.format, hasAlpha: vips_image_hasalpha(image) != 0)
            let bytes = try encode(image, as: format, quality: limits.jpegQuality)
            return ProcessedImage(
                bytes: bytes, format: format,
                width: Int(vips_image_get_width(image)), height: Int(vips_image_get_height(image)),
                sourceFormat: header.format
            )
        }
    }

    private static func thumbnail(_ buffer: UnsafeRawBufferPointer, maximumSide: Int) throws(ImageRefusal) -> UnsafeMutablePointer<VipsImage> {
        var out: UnsafeMutablePointer<VipsImage>?
        guard diary_vips_thumbnail_buffer(buffer.baseAddress, buffer.count, &out, Int32(maximumSide)) == 0, let out else {
            throw .undecodable(VipsImageLibrary.takeErrorText())
        }
        return out
    }

    /// The thumbnail keeps a non-sRGB ICC profile (Display P3 from phones, Adobe RGB from
    /// cameras); stripping it would shift the colours, so the pixels are converted first.
    private static func convertedToSRGB(_ image: UnsafeMutablePointer<VipsImage>) throws(ImageRefusal) -> UnsafeMutablePointer<VipsImage> {
        guard diary_vips_has_icc_profile(image) != 0 else { return image }
        var out: UnsafeMutablePointer<VipsImage>?
        guard diary_vips_embedded_profile_to_srgb(image, &out) == 0, let out else {
            throw .undecodable(VipsImageLibrary.takeErrorText())
        }
        return out
    }

    /// Encodes with metadata stripped. Decoding happens here (the pipeline is lazy), so a
    /// truncated file fails here, as `undecodable`.
    private static func encode(_ image: UnsafeMutablePointer<VipsImage>, as format: StoredImageFormat, quality: Int) throws(ImageRefusal) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = switch format {
        case .jpeg: diary_vips_jpeg_save_stripped(image, &buffer, &length, Int32(quality))
        case .png: diary_vips_png_save_stripped(image, &buffer, &length)
        }
        guard status == 0, let buffer else { throw .undecodable(VipsImageLibrary.takeErrorText()) }
        defer { g_free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
