/// The bounds one upload is processed within.
public struct ImageLimits: Sendable, Equatable {
    /// The most pixels a header may declare: a few KB of PNG can claim 30,000 × 30,000, and the
    /// decoder's memory follows the claim, not the file's size.
    public var maximumPixels: Int
    /// The longer side of the kept image, at most.
    public var maximumSide: Int
    /// The JPEG quality of the kept image: 85 is where artefacts stop being visible on photos
    /// and the file is about a third of quality 95's.
    public var jpegQuality: Int

    public init(maximumPixels: Int = 50_000_000, maximumSide: Int = 2_048, jpegQuality: Int = 85) {
        self.maximumPixels = maximumPixels
        self.maximumSide = maximumSide
        self.jpegQuality = jpegQuality
    }
}
