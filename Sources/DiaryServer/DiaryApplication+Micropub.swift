import HTTPCore
import Micropub

extension DiaryApplication {
    /// `/micropub`: GET answers queries, POST creates, updates and deletes (`MicropubEndpoint`).
    /// Never kept in the response cache: every answer is for the token's holder.
    static func addMicropub(to router: inout Router, handlers: Handlers, authenticator: Authenticator, site: SiteAddress) {
        let endpoint = MicropubEndpoint(handlers: handlers, authenticator: authenticator, site: site)
        router.add(Router.Route(method: .get, path: MicropubEndpoint.path) { request, _ in endpoint.query(request) })
        router.add(Router.Route(method: .post, path: MicropubEndpoint.path) { request, _ in endpoint.post(request) })
    }

    /// Micropub's path, made once: `maxBodySize` compares every POST with it.
    static let micropubPath = MicropubEndpoint.path.description

    /// Whether `request` is a Micropub post that may carry photos: it may be as large as an
    /// upload to the media endpoint, for a token in the header that may write.
    static func isMicropubUpload(_ request: Request) -> Bool {
        request.method == .post && request.path == micropubPath
            && request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true
    }
}
