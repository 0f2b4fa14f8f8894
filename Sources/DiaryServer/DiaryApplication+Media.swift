import DiaryAPI
import DiaryPages
import HTTPCore

extension DiaryApplication {
    /// `/media/{media_id}`: the images themselves (GET, and HEAD through the router). Never
    /// kept in the response cache: who may see an image depends on a token, and its bytes
    /// come from the store's one indexed read.
    static func addMediaFiles(to router: inout Router, handlers: Handlers, authenticator: Authenticator, pages: PageRenderer) {
        router.add(Router.Route(method: .get, path: "/media/{media_id}") { request, parameters in
            handlers.serveMedia(request, mediaID: parameters["media_id"] ?? "", authenticator: authenticator, pages: pages)
        })
    }
}
