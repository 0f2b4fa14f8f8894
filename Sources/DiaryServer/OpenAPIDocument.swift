import DiaryAPI
import HTTPCore

/// `GET /api/openapi.json`: the API's OpenAPI 3.1 document, this folder's openapi.json
/// (`api/openapi.json` links to it), embedded in the binary at build time.
enum OpenAPIDocument {
    static let path: PathTemplate = "/api/openapi.json"

    /// The document never changes while the server runs: its representation is made once.
    private static let representation = Representation(
        headers: .standard(contentType: "application/json; charset=utf-8", cacheable: true),
        body: PackageResources.openapi_json,
        lastModified: nil
    )

    static let route = Router.Route(method: .get, path: path) { request, _ in
        representation.answer(to: request)
    }
}
