import ByteEncodings
import Foundation

/// Strong entity tags made from a response's bytes, and the `If-Match` / `If-None-Match` lists
/// that refer to them. The same bytes always give the same tag (JSON keys are sorted), in any
/// process, so a tag stays valid across restarts.
enum EntityTag {
    /// `"` + FNV-1a 64 of `body` as 16 hex digits + `"`. Not cryptographic: it tells versions
    /// of one resource apart, which a 64-bit hash does with room to spare.
    static func of(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return "\"" + Hex.lowercase(hash) + "\""
    }

    /// Whether a condition header (`*` or a comma-separated list of tags) names `tag`.
    /// `If-Match` compares strongly (a weak `W/` tag never matches), `If-None-Match` weakly.
    static func list(_ header: String, contains tag: String, weak: Bool) -> Bool {
        for item in header.split(separator: ",") {
            var candidate = item.trimmingCharacters(in: [" ", "\t"])[...]
            if candidate == "*" { return true }
            if candidate.hasPrefix("W/") {
                guard weak else { continue }
                candidate = candidate.dropFirst(2)
            }
            if candidate == tag { return true }
        }
        return false
    }
}
