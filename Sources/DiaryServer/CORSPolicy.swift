import DiaryAPI
import HTTPCore

/// Cross-origin access for browser scripts from the configured origins only. Other origins
/// get the same answers without `Access-Control-*` headers, which browsers then withhold.
struct CORSPolicy: Sendable {
    let allowedOrigins: Set<String>

    init(allowedOrigins: [String]) {
        self.allowedOrigins = Set(allowedOrigins)
    }

    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    static let allowedHeaders = [
        HTTPField.authorization, HTTPField.contentType, HTTPField.ifMatch, HTTPField.ifNoneMatch,
        HTTPField.ifModifiedSince, HTTPField.idempotencyKey,
    ].joined(separator: ", ")
    static let exposedHeaders = [
        HTTPField.eTag, HTTPField.link, HTTPField.location, HTTPField.totalCount, HTTPField.idempotentReplayed,
        HTTPField.lastModified,
    ].joined(separator: ", ")

    func respond(to request: HTTPRequest, next: (HTTPRequest) -> HTTPResponse) -> HTTPResponse {
        var response = next(request)
        guard !allowedOrigins.isEmpty else { return response }
        response.headers.add("Vary", "Origin")
        guard let origin = request.headers["Origin"], allowedOrigins.contains(origin) else { return response }
        response.headers.set("Access-Control-Allow-Origin", origin)
        let isPreflight = request.method == "OPTIONS" && request.headers["Access-Control-Request-Method"] != nil
        if isPreflight && response.status == 204 {
            response.headers.set("Access-Control-Allow-Methods", Self.allowedMethods)
            response.headers.set("Access-Control-Allow-Headers", Self.allowedHeaders)
            response.headers.set("Access-Control-Max-Age", "600")
        } else {
            response.headers.set("Access-Control-Expose-Headers", Self.exposedHeaders)
        }
        return response
    }
}
