import CVips

/// What an upload's header says, read without decoding a pixel.
public struct ImageHeader: Sendable, Equatable {
    public let format: ImageFormat
    /// The stored size, before the EXIF orientation turns it.
    public let width: Int
    public let height: Int

    /// Reads the header of `bytes`: the format by the bytes' magic numbers (only allowed
    /// loaders answer), then width and height, refused past `limits.maximumPixels`.
    public static func read(_ bytes: [UInt8], limits: ImageLimits = ImageLimits()) throws(ImageRefusal) -> ImageHeader {
        try bytes.withUnsafeImageBytes { buffer throws(ImageRefusal) in
            try read(buffer, limits: limits)
        }
    }

    static func read(_ buffer: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageRefusal) -> ImageHeader {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw .empty }
        // Blocked loaders do not answer here, so SVG, PDF and the rest fall to nil.
        guard let loader = vips_foreign_find_load_buffer(base, buffer.count),
              let format = ImageFormat(bufferLoaderClass: String(cString: loader))
        else {
            vips_error_clear()
            throw .unsupportedFormat
        }
        guard let image = diary_vips_header_from_buffer(base, buffer.count) else {
            throw .undecodable(VipsImageLibrary.takeErrorText())
        }
        defer { g_object_unref(image) }
        let width = Int(vips_image_get_width(image))
        let height = Int(vips_image_get_height(image))
        guard width > 0, height > 0 else { throw .undecodable("the header declares no pixels") }
        // Each side is an Int32 above 0: their product cannot overflow an Int.
        guard width * height <= limits.maximumPixels else { throw .tooManyPixels(width: width, height: height) }
        return ImageHeader(format: format, width: width, height: height)
    }
}
