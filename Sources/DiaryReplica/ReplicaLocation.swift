import Foundation

/// Where the replica of one server, as one user reads it, lives:
/// `$XDG_DATA_HOME/diary/<host>_<port>-<user>.sqlite3` (default `~/.local/share/diary/`),
/// one file per server and user, so that two servers or two tokens never mix their entries.
public struct ReplicaLocation: Sendable, Equatable {
    public var folder: URL
    public var file: URL

    /// - parameter user: the token's user name, or nil for the public part read without a token.
    public init(server: URL, user: String?, environment: [String: String] = ProcessInfo.processInfo.environment) {
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
        file = folder.appendingPathComponent(Self.safe("\(host)_\(port)-\(user ?? "public")") + ".sqlite3")
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
