import DiaryAPI
import DiaryPages
import DiaryStore
import HTTPCore
import HTTPTypes

extension Handlers {
    /// Processes the upload (`MediaProcessing`: at most a few at once), then keeps it within
    /// the user's quota. Cheap things first: a retry with the same `Idempotency-Key` and the
    /// same bytes answers the image the first kept, and a user whose images fill the quota is
    /// refused, both before any processing; the store's transaction checks both again.
    func uploadMedia(_ endpoint: UploadMedia, _ context: RequestContext) throws(Problem) -> Reply<MediaItem> {
        let user = try context.authenticatedUser()
        let upload = try endpoint.body.required()
        let key = try context.idempotencyKey(forRawBody: upload.bytes)
        let quota = mediaProcessing.limits.quotaBytes
        if let earlier = try run({ () throws(StoreError) in try store.checkMediaUpload(userID: user.id, quota: quota, idempotency: key) }) {
            return Reply(earlier, replayed: true)
        }
        let media = try mediaProcessing.process(upload)
        let created = try run { () throws(StoreError) in
            try store.createMedia(userID: user.id, media: media, quota: quota, idempotency: key)
        }
        return Reply(created.value, replayed: created.replayed)
    }

    /// `GET /media/{media_id}`: the image to whoever may see it (`DiaryStore.media`): to the
    /// holder of a token sent, or to anyone. Anything else, whatever the reason, is the 404 of
    /// an id never given out, byte for byte. Its bytes never change under its id, so the id is
    /// its strong ETag; an image anyone may see may be kept by any cache for a year.
    ///
    /// The answer to anyone (no token) is a `Representation`, which the response cache may
    /// keep: it is the same for every such request until the next write, and its 304 is made
    /// from it the same way. A token's answer carries `Vary: Authorization` and is never kept.
    func mediaAnswer(
        _ request: Request, mediaID text: String, authenticator: Authenticator, pages: PageRenderer
    ) -> Result<Representation, ResponseCache.Uncached> {
        let uncached = { (response: Response) in Result<Representation, ResponseCache.Uncached>.failure(.init(response: response)) }
        // Rendered only when it is the answer: most requests are for an image that is there.
        let missing = { Response(errorPage: .notFound("There is no image here."), pages: pages) }
        guard let id = MediaID(text) else { return uncached(missing()) }
        let stored: StoredMedia?
        let withToken = request.headers[.authorization] != nil
        do throws(Problem) {
            let viewer = withToken ? try authenticator.holder(for: request).user : nil
            stored = try run { () throws(StoreError) in try store.media(id: id, viewerID: viewer?.id) }
        } catch {
            return uncached(Response(errorPage: error, pages: pages))
        }
        guard let stored else { return uncached(missing()) }
        let tag = "\"\(stored.item.id)\""
        var headers: HTTPFields = [
            .contentType: stored.item.contentType,
            .xContentTypeOptions: "nosniff",
            .eTag: tag,
            .cacheControl: stored.isPublic ? "public, max-age=31536000, immutable" : "private, no-store",
        ]
        // Without a token only an image anyone may see is found at all.
        guard withToken else { return .success(Representation(headers: headers, body: stored.data, tag: tag)) }
        if let list = request.headers[.ifNoneMatch], EntityTag.list(list, contains: tag, weak: true) {
            headers[.contentType] = nil
            return uncached(Response(status: .notModified, headers: headers))
        }
        // A token's answer differs from anyone's: caches keep them apart.
        headers.add(.vary, "Authorization")
        return uncached(Response(status: .ok, headers: headers, body: stored.data))
    }
}

extension RequestContext {
    /// The `Idempotency-Key` of a body taken as sent (an upload), its fingerprint made from
    /// the path and the bytes: JSON-encoding 20 MB of image to hash it would cost more than
    /// the upload's processing.
    func idempotencyKey(forRawBody bytes: [UInt8]) throws(Problem) -> IdempotencyKey? {
        guard let checked = try idempotencyKey(for: NoBody()) else { return nil }
        return IdempotencyKey(key: checked.key, fingerprint: ResponseTag.of(parts: [Array(request.path.utf8), [0], bytes]))
    }
}

extension MediaItem: Locatable {
    public var location: String { url }
}
