import ByteEncodings
import DiaryAPI

/// AtomPub's addresses, modelled on Hatena Blog's (`…/atom` is the service document,
/// `…/atom/entry` a blog's collection and `…/atom/entry/{id}` a member): here the service
/// document is `/atom`, and each diary is a collection under it. Defined once: the server's
/// router matches these templates and the documents link with them.
public enum AtomPubPaths {
    public enum Route {
        public static let service: PathTemplate = "/atom"
        public static let collection: PathTemplate = "/atom/diaries/{diary_id}/entry"
        public static let member: PathTemplate = "/atom/diaries/{diary_id}/entry/{entry_id}"
    }

    public static let service = Route.service.render([:])
    /// What every other AtomPub path starts with, made once: `contains` runs on every cached read.
    static let servicePrefix = service + "/"

    public static func collection(_ diaryID: Int64) -> String {
        Route.collection.render(["diary_id": String(diaryID)])
    }

    /// A page of the collection after the first: `cursor` is the store's, as the API hands out.
    public static func collection(_ diaryID: Int64, cursor: String) -> String {
        collection(diaryID) + "?cursor=" + PercentEncoding.encode(cursor)
    }

    public static func member(diaryID: Int64, entryID: Int64) -> String {
        Route.member.render(["diary_id": String(diaryID), "entry_id": String(entryID)])
    }

    /// Whether `path` is AtomPub's: its problems are answered as problem+json, as the API's are.
    /// Compared as UTF-8 bytes: `StringProtocol.hasPrefix` on a `Substring` went through
    /// unspecialised witness calls, 3,700 instructions of every kept answer (callgrind), now 400.
    public static func contains(_ path: Substring) -> Bool {
        let service = serviceBytes
        return path.utf8.withContiguousStorageIfAvailable { path in
            path.starts(with: service) && (path.count == service.count || path[service.count] == UInt8(ascii: "/"))
        } ?? (path == self.service || path.hasPrefix(servicePrefix))
    }

    private static let serviceBytes = Array(service.utf8)
}
