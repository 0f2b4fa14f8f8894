import DiaryAPI
import DiaryStore
import HTTPCore
import HTTPTypes
import Micropub

extension MicropubEndpoint {
    /// A new entry: checked by the API's rules first (so a refused post keeps no photo), then
    /// its photos kept, then the entry written. 201 with the entry's page as `Location`.
    func create(_ post: MicropubPost, user: User) throws(MicropubError) -> Response {
        let diaryID = try post.destination.map { uid throws(MicropubError) in
            guard let id = MicropubSource.diaryID(from: uid, site: site.url) else {
                throw .invalidRequest("mp-destination \(uid.prefix(200)) is not one of your diaries; q=destination lists them.")
            }
            return id
        }
        let checked = try Self.validated(
            NewEntry(title: post.title, body: post.body(photoURLs: []), diaryID: diaryID, tags: post.tags, created: post.published,
                     visibility: post.visibility, draft: post.draft)
        )
        let photoURLs = try post.photos.map { photo throws(MicropubError) in try keep(photo, user: user) }
        let body = post.body(photoURLs: photoURLs)
        let created = try run { () throws(StoreError) in
            try store.createEntry(
                userID: user.id, diaryID: diaryID, title: checked.title, body: body, tags: checked.tags ?? [], created: post.published,
                visibility: post.visibility, draft: post.draft, idempotency: nil
            )
        }
        var headers = HTTPFields.standard(contentType: "text/plain", cacheable: false)
        headers.add(.location, MicropubSource.entryURL(created.value.id, site: site.url))
        return Response(status: .created, headers: headers)
    }

    /// A photo as the entry links it: an upload kept as `POST /api/media` keeps one (same
    /// processing, limits and quota); one of this site's `/media/…` images the caller may see,
    /// by its path; any other http or https URL as it is, never fetched.
    func keep(_ photo: MicropubPhoto, user: User) throws(MicropubError) -> (url: String, alt: String?) {
        switch photo {
        case .file(let bytes, let contentType):
            do throws(Problem) {
                let media = try handlers.mediaProcessing.process(ImageUpload(rawBytes: bytes, contentType: contentType))
                let created = try handlers.run { () throws(StoreError) in
                    try store.createMedia(userID: user.id, media: media, quota: handlers.mediaProcessing.limits.quotaBytes, idempotency: nil)
                }
                return (created.value.url, nil)
            } catch {
                throw Self.micropubError(error)
            }
        case .url(let url, let alt):
            let local = url.hasPrefix(site.url + "/") ? String(url.dropFirst(site.url.count)) : url
            if local.hasPrefix(MediaID.pathPrefix) {
                guard let id = MediaID(local.dropFirst(MediaID.pathPrefix.count)),
                      try run({ () throws(StoreError) in try store.media(id: id, viewerID: user.id) }) != nil
                else { throw .invalidRequest("There is no image of yours at \(url.prefix(200)).") }
                return (id.url, alt)
            }
            let scheme = url.prefix { $0 != ":" }.lowercased()
            guard scheme == "https" || scheme == "http", url.count > scheme.count + 3 else {
                throw .invalidRequest("photo must be an http or https URL, or a file.")
            }
            return (url, alt)
        }
    }

    /// An update of the caller's entry at `url`, through the rules `PATCH /api/entries` keeps. 204.
    func update(_ url: String, _ update: MicropubUpdate, user: User) throws(MicropubError) -> Response {
        let entry = try ownEntry(at: url, user: user)
        let patch = try Self.validated(update.patch(of: entry))
        let changes = EntryChanges(
            title: patch.title, body: patch.body, tags: patch.tags, visibility: patch.visibility?.value, created: patch.created, draft: patch.draft
        )
        _ = try run { () throws(StoreError) in try store.updateEntry(id: entry.id, userID: user.id, changes: changes, precondition: nil) }
        return Response(status: .noContent, headers: HTTPFields.standard(contentType: "text/plain", cacheable: false))
    }

    /// A body the API's rules accept, or a 400 that says which rule it breaks.
    static func validated<Body: ValidatableBody>(_ body: Body) throws(MicropubError) -> Body {
        switch body.validated() {
        case .success(let valid): return valid
        case .failure(let failure):
            throw .invalidRequest(failure.errors.map { "\($0.field) \($0.message)" }.joined(separator: "; "))
        }
    }
}
