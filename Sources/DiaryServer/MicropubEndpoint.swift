import ByteEncodings
import DiaryAPI
import DiaryPages
import DiaryStore
import HTTPCore
import HTTPTypes
import Micropub

/// `/micropub` (W3C Micropub): posts made by other editors' apps, on the store and media code
/// the API uses. Its answers are Micropub's, not the API's: errors as `{"error",
/// "error_description"}` (`MicropubError`), success as 201 + `Location`, 204, or JSON.
struct MicropubEndpoint: Sendable {
    static let path = SitePaths.Route.micropub

    let handlers: Handlers
    let authenticator: Authenticator
    let site: SiteAddress

    var store: any DiaryStore { handlers.store }

    /// Runs `work` and answers its response, or its error as Micropub words errors.
    func answer(_ work: () throws(MicropubError) -> Response) -> Response {
        do {
            return try work()
        } catch {
            var headers = HTTPFields.standard(contentType: "application/json; charset=utf-8", cacheable: false)
            if error.status == 401 { headers.add(.wwwAuthenticate, #"Bearer realm="diary""#) }
            if error.status == 503 { headers.add(.retryAfter, "1") }
            return Response(status: HTTPResponse.Status(code: error.status), headers: headers, body: error.json)
        }
    }

    /// JSON for the caller alone: never kept by a cache.
    func json(_ body: [UInt8]) -> Response {
        Response(status: .ok, headers: HTTPFields.standard(contentType: "application/json; charset=utf-8", cacheable: false), body: body)
    }

    /// The caller, from the `Authorization` header or (form bodies only) `access_token`; both
    /// at once is a 400, as RFC 6750 §2 allows one method per request (micropub.rocks 805).
    func holder(_ request: Request, bodyToken: String?) throws(MicropubError) -> TokenHolder {
        if request.headers[.authorization] != nil, bodyToken != nil {
            throw .invalidRequest("Send the token once: in the Authorization header or as access_token, not both.")
        }
        do throws(Problem) {
            if let bodyToken { return try authenticator.holder(token: bodyToken) }
            return try authenticator.holder(for: request)
        } catch {
            throw Self.micropubError(error)
        }
    }

    /// A problem of the code the API shares (the store, the authenticator, the media
    /// processing) in Micropub's words: its status kept, and the error code the status means.
    static func micropubError(_ problem: Problem) -> MicropubError {
        let code = switch problem.status {
        case 401: "unauthorized"
        case 403: problem.type == "/problems/insufficient-scope" ? "insufficient_scope" : "forbidden"
        case 500...: "server_error"
        default: "invalid_request"
        }
        // 404 of the store names an entry or diary the request pointed at: a bad request here.
        return MicropubError(code: code, description: problem.detail, status: problem.status == 404 ? 400 : problem.status)
    }

    /// Runs a store call, its failure in Micropub's words.
    func run<T>(_ body: () throws(StoreError) -> T) throws(MicropubError) -> T {
        do {
            return try handlers.run(body)
        } catch {
            throw Self.micropubError(error)
        }
    }

    /// The caller's entry at `url`: 400 when no entry the caller may see is there (someone
    /// else's private entry or draft included, so nothing says it exists), 403 when it is
    /// someone else's.
    func ownEntry(at url: String, user: User) throws(MicropubError) -> Entry {
        guard let id = MicropubSource.entryID(from: url, site: site.url),
              let entry = try run({ () throws(StoreError) in try store.entry(id: id, viewerID: user.id) })
        else { throw .invalidRequest("There is no post at \(url.prefix(200)).") }
        guard entry.author == user.name else { throw .forbidden("The post at \(url.prefix(200)) is not yours.") }
        return entry
    }
}
