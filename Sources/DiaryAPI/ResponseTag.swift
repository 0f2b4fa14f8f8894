import ByteEncodings

/// The strong entity tag of a response's bytes, written once for the server (which sends it as
/// `ETag`) and the client (whose offline edits carry the tag of the entry they were based on
/// as `If-Match`, computed from the entry as the change feed gave it: the same bytes as
/// `GET /api/entries/{id}`).
public enum ResponseTag {
    /// `"` + FNV-1a 64 of `body` as 16 hex digits + `"`. Not cryptographic: it tells versions
    /// of one resource apart, which a 64-bit hash does with room to spare.
    public static func of(_ body: [UInt8]) -> String {
        of(parts: [body])
    }

    /// The tag of `parts` joined into one body, without joining them: an upload's fingerprint
    /// is its path and up to 20 MB of image, which a joined copy would double.
    public static func of(parts: [[UInt8]]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in parts {
            for byte in part {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        return "\"" + Hex.lowercase(hash) + "\""
    }

    /// The tag `GET /api/entries/{id}` sends for `entry`.
    public static func of(_ entry: Entry) -> String {
        of(entry.jsonBytes)
    }
}
