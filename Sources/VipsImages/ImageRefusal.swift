/// Why an upload is not an image Diary keeps. The API answers `unsupportedFormat` with 415 and
/// the others with 422; none of them stores anything.
public enum ImageRefusal: Error, Equatable, Sendable {
    /// No allowed loader recognises the bytes: SVG, HTML, PDF, a blocked format, or noise.
    case unsupportedFormat
    /// The body is empty.
    case empty
    /// An allowed format whose header or pixels cannot be decoded (truncated, corrupt,
    /// zero-size); the text is libvips' own explanation, for logs, not for the client.
    case undecodable(String)
    /// More pixels than `ImageLimits.maximumPixels`, decided from the header before decoding.
    case tooManyPixels(width: Int, height: Int)
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body that throws only refusals (the standard one rethrows
    /// `any Error`).
    func withUnsafeImageBytes<T>(_ body: (UnsafeRawBufferPointer) throws(ImageRefusal) -> T) throws(ImageRefusal) -> T {
        let result = withUnsafeBytes { buffer in Result { () throws(ImageRefusal) -> T in try body(buffer) } }
        return try result.get()
    }
}
