import DiaryAPI
import HTTPCore

/// `GET /api/openapi.json`: the API's OpenAPI 3.1 document, this folder's openapi.json
/// (`api/openapi.json` links to it), embedded in the binary at build time.
enum OpenAPIDocument {
    static let path: PathTemplate = "/api/openapi.json"

    static let route = Router.Route(method: .GET, path: path) { request, _ in
        let body = PackageResources.openapi_json
        var headers = HTTPHeaders.standard(contentType: "application/json; charset=utf-8", cacheable: true)
        let tag = EntityTag.of(body)
        headers.add(HTTPField.eTag, tag)
        if Conditions.notModified(request, tag: tag, lastModified: nil) {
            headers.remove("Content-Type")
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }
}
