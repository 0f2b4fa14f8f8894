/// The SHA-256 of an API token, hex-encoded (made by `TokenHash(token:)` in APITokens). Only
/// this is stored: a stolen database yields no usable token.
public struct TokenHash: Sendable, Hashable, CustomStringConvertible {
    public let hex: String

    public init(hex: String) {
        self.hex = hex
    }

    /// Never the hash itself: it must not reach a log line.
    public var description: String { "TokenHash(…)" }
}
