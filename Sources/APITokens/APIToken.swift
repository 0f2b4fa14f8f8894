import ByteEncodings
import Crypto
import DiaryStore

/// API tokens: made here, and only ever stored or compared as their SHA-256 (`TokenHash`).
public enum APIToken {
    /// A new token: `diary_` and 256 random bits from the system's CSPRNG, base64url without padding.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "diary_" + Base64URL.encode(bytes)
    }
}

extension TokenHash {
    /// The hash of the token as the client sent it. Tokens carry 256 random bits, so a plain
    /// hash needs no salt, and looking a user up by it takes the same time for any wrong token.
    public init(token: String) {
        self.init(hex: Hex.lowercase(SHA256.hash(data: Array(token.utf8))))
    }
}
