import DiaryAPI
import DiaryStore
import HTTPCore
import Micropub

extension MicropubEndpoint {
    /// `GET /micropub?q=…`: config, source, syndicate-to and destination, to a token of
    /// either scope. A source is only ever the caller's own post.
    func query(_ request: Request) -> Response {
        answer { () throws(MicropubError) in
            guard let items = request.queryItems() else {
                throw .invalidRequest("The query string has a broken percent-escape or is not UTF-8.")
            }
            let user = try holder(request, bodyToken: nil).user
            switch items.last(where: { $0.name == "q" })?.value {
            case "config"?:
                let diaries = try ownDiaries(user)
                return json(MicropubSource.config(mediaEndpoint: site.url + UploadMedia.path.description, destinations: diaries, site: site.url))
            case "syndicate-to"?: return json(MicropubSource.syndicateTo)
            case "destination"?: return json(MicropubSource.destinations(try ownDiaries(user), site: site.url))
            case "source"?:
                guard let url = items.last(where: { $0.name == "url" })?.value else {
                    throw .invalidRequest("q=source needs the post's url.")
                }
                let properties = items.filter { $0.name == "properties[]" || $0.name == "properties" }.map(\.value)
                return json(MicropubSource.source(of: try ownEntry(at: url, user: user), properties: properties, site: site.url))
            case let other?: throw .invalidRequest("This server answers q=config, source, syndicate-to and destination, not q=\(other.prefix(40)).")
            case nil: throw .invalidRequest("Send a query: q=config, q=source, q=syndicate-to or q=destination.")
            }
        }
    }

    private func ownDiaries(_ user: User) throws(MicropubError) -> [Diary] {
        do {
            return try handlers.ownDiaries(of: user)
        } catch {
            throw Self.micropubError(error)
        }
    }
}
