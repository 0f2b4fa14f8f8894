import ByteEncodings

/// The one stylesheet every page uses (`style.css` beside this file, embedded at build time).
/// Pages link it with a version taken from its bytes, so it can be cached for a year: a
/// changed stylesheet has a new address.
public enum Stylesheet {
    public static let bytes: [UInt8] = PackageResources.style_css

    /// 12 hex digits of FNV-1a 64 of the bytes.
    public static let version: String = {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return String(Hex.lowercase(hash).prefix(12))
    }()

    /// The address pages link: `/style.css?v=…`.
    public static let versionedPath = SitePaths.stylesheet + "?v=" + version
}
