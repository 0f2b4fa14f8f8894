import APITokens
import DiaryStore
import Foundation

/// Where the replica of one server, as one token reads it, lives:
/// `$XDG_DATA_HOME/diary/<host>_<port>-<token>.sqlite3` (default `~/.local/share/diary/`),
/// where `<token>` is the first 16 hex digits of the token's SHA-256 (the hash the server keeps),
/// or `public` without a token. Keyed by the token, not the user's name, so that the replica is
/// found offline, when the server cannot say whose the token is; a replaced token starts a new
/// replica. Two servers or two tokens never mix their entries, and the name shows no token.
public struct ReplicaLocation: Sendable, Equatable {
    public var folder: URL
    public var file: URL

    public init(server: URL, token: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        folder = base.appendingPathComponent("diary")
        let host = server.host ?? "server"
        let port = server.port.map(String.init) ?? (server.scheme == "https" ? "443" : "80")
        let reader = token.map { String(TokenHash(token: $0).hex.prefix(16)) } ?? "public"
        file = folder.appendingPathComponent(Self.safe("\(host)_\(port)-\(reader)") + ".sqlite3")
    }

    /// A name made of letters, digits, `.`, `_` and `-` only: no path separator, nothing hidden.
    static func safe(_ name: String) -> String {
        let kept = name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        }
        let text = String(kept)
        return text.hasPrefix(".") ? "_" + text.dropFirst() : text
    }
}
