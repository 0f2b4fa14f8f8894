/// The header fields the API defines behaviour for, named once for server and client.
public enum HTTPField {
    public static let authorization = "Authorization"
    public static let contentType = "Content-Type"
    public static let eTag = "ETag"
    public static let lastModified = "Last-Modified"
    public static let ifNoneMatch = "If-None-Match"
    public static let ifModifiedSince = "If-Modified-Since"
    public static let ifMatch = "If-Match"
    public static let idempotencyKey = "Idempotency-Key"
    /// Set to `true` on a 201 that repeats the answer to an earlier request with the same key.
    public static let idempotentReplayed = "Idempotent-Replayed"
    public static let link = "Link"
    public static let location = "Location"
    public static let totalCount = "X-Total-Count"
}

/// The media types a request body may have.
public enum MediaTypes {
    public static let json = "application/json"
    /// Newline-delimited JSON: one value a line (`POST /api/import`, `GET /api/export`).
    public static let ndjson = "application/x-ndjson"
    /// Plain-text bodies an endpoint may take besides JSON (see `PlainTextBody`).
    public static let text = ["text/plain", "text/markdown"]
}

/// A body that can also be posted as plain text (`text/plain`, `text/markdown`).
public protocol PlainTextBody {
    init(plainText: String)
}

extension NewEntry: PlainTextBody {
    /// The first line is the title (without a leading `#`), the rest the body.
    public init(plainText: String) {
        let parts = EntryText.parse(plainText)
        self.init(title: parts.title, body: parts.body)
    }
}

/// Percent-encoding of everything but RFC 3986's unreserved characters, for path segments
/// and query values alike.
public enum PercentEncoding {
    public static func encode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
