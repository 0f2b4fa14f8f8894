import DiaryAPI
import DiaryPages
import HTTPCore

extension DiaryApplication {
    /// `/media/{media_id}`: the images themselves (GET, and HEAD through the router). An image
    /// anyone may see, asked for without a token, is kept in `cache` like a page, and served
    /// again from memory until the next write (which may have made it private); an answer to a
    /// token, a refusal or a 304 made for a token never is.
    static func addMediaFiles(
        to router: inout Router, handlers: Handlers, authenticator: Authenticator, pages: PageRenderer, cache: ResponseCache?
    ) {
        router.add(Router.Route(method: .get, path: "/media/{media_id}") { request, parameters in
            let build = {
                handlers.mediaAnswer(request, mediaID: parameters["media_id"] ?? "", authenticator: authenticator, pages: pages)
            }
            guard let cache, request.headers[.authorization] == nil else { return build().response(to: request) }
            return cache.answer(request, build: build)
        })
    }
}
