import DiaryAPI
import Foundation

/// Strong entity tags made from a response's bytes, and the `If-Match` / `If-None-Match` lists
/// that refer to them. The same bytes always give the same tag (JSON keys are sorted), in any
/// process, so a tag stays valid across restarts.
enum EntityTag {
    /// `"` + FNV-1a 64 of `body` as 16 hex digits + `"` (DiaryAPI's `ResponseTag`, which the
    /// client uses too).
    static func of(_ body: [UInt8]) -> String {
        ResponseTag.of(body)
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
