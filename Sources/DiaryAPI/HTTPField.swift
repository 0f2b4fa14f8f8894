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
