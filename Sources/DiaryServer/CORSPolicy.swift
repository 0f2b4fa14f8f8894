import DiaryAPI
import HTTPCore
import HTTPTypes

/// Cross-origin access for browser scripts from the configured origins only. Other origins
/// get the same answers without `Access-Control-*` headers, which browsers then withhold.
struct CORSPolicy: Sendable {
    let allowedOrigins: Set<String>

    init(allowedOrigins: [String]) {
        self.allowedOrigins = Set(allowedOrigins)
    }

    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    static let allowedHeaders = ([
        .authorization, .contentType, .ifMatch, .ifNoneMatch, .ifModifiedSince, .idempotencyKey,
    ] as [HTTPField.Name]).map(\.rawName).joined(separator: ", ")
    static let exposedHeaders = ([
        .eTag, .link, .location, .totalCount, .idempotentReplayed, .lastModified,
    ] as [HTTPField.Name]).map(\.rawName).joined(separator: ", ")

    func respond(to request: Request, next: (Request) -> Response) -> Response {
        var response = next(request)
        guard !allowedOrigins.isEmpty else { return response }
        response.headers.add(.vary, "Origin")
        guard let origin = request.headers[.origin], allowedOrigins.contains(origin) else { return response }
        response.headers[.accessControlAllowOrigin] = origin
        let isPreflight = request.method == .options && request.headers[.accessControlRequestMethod] != nil
        if isPreflight && response.status == 204 {
            response.headers[.accessControlAllowMethods] = Self.allowedMethods
            response.headers[.accessControlAllowHeaders] = Self.allowedHeaders
            response.headers[.accessControlMaxAge] = "600"
        } else {
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        }
        return response
    }
}
