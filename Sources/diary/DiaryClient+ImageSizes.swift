import DiaryAPI
import DiaryClient

extension DiaryClient {
    /// The sizes of the site's images `bodies` show, those the server lets this reader see;
    /// one request each (an entry, or a page of them, shows a few), none when they show none.
    func imageSizes(in bodies: [String]) async -> [String: (width: Int, height: Int)] {
        var sizes: [String: (width: Int, height: Int)] = [:]
        for body in bodies {
            for id in MediaLinks.ids(in: body) where sizes[id.text] == nil {
                if let item = try? await send(GetMedia(mediaID: id)) { sizes[id.text] = (item.width, item.height) }
            }
        }
        return sizes
    }
}
