/// The media types a request body may have.
public enum MediaTypes {
    public static let json = "application/json"
    /// Newline-delimited JSON: one value a line (`POST /api/import`, `GET /api/export`).
    public static let ndjson = "application/x-ndjson"
    /// Plain-text bodies an endpoint may take besides JSON (see `PlainTextBody`).
    public static let text = ["text/plain", "text/markdown"]
}
