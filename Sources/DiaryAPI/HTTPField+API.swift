import HTTPTypes

/// The header fields the API defines behaviour for that swift-http-types does not name; the
/// others (`.authorization`, `.eTag`, `.ifMatch`, ...) come with it. Named once for server and client.
extension HTTPField.Name {
    public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    /// Set to `true` on a 201 that repeats the answer to an earlier request with the same key.
    public static let idempotentReplayed = HTTPField.Name("Idempotent-Replayed")!
    public static let link = HTTPField.Name("Link")!
    public static let totalCount = HTTPField.Name("X-Total-Count")!
}
