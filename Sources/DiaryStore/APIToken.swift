import Crypto
import Foundation

/// The SHA-256 of an API token, hex-encoded. Only this is stored: a stolen database yields
/// no usable token, and since tokens carry 256 random bits a plain hash needs no salt.
public struct TokenHash: Sendable, Hashable, CustomStringConvertible {
    public let hex: String

    public init(hex: String) {
        self.hex = hex
    }

    /// The hash of the token as the client sent it.
    public init(token: String) {
        hex = SHA256.hash(data: Array(token.utf8)).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }

    /// Compares every byte whatever the first difference, so timing says nothing about where it is.
    public func constantTimeEquals(_ other: TokenHash) -> Bool {
        let a = Array(hex.utf8), b = Array(other.hex.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    /// Never the hash itself: it must not reach a log line.
    public var description: String { "TokenHash(…)" }
}

public enum APIToken {
    /// A new token: `diary_` and 256 random bits from the system's CSPRNG, base64url without padding.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "diary_" + base64
    }
}
