import AtomPub
import DiaryAPI
import DiaryPages
import DiaryStore
import Foundation
import HTTPCore

/// The diary service as an `HTTPResponder`: every endpoint of the contract routed to its
/// handler on a store. Knows nothing of sockets; the transport calls it on its threads.
public struct DiaryApplication: HTTPResponder {
    public struct Configuration: Sendable {
        /// Origins (`https://example.com`) whose browser scripts may call the API; none by default.
        public var corsOrigins: [String]
        /// Bytes of answers to open GETs kept for reuse until the next write (see
        /// `ResponseCache`); 0 keeps none.
        public var responseCacheBytes: Int
        /// The site's absolute URL for feeds (`https://diary.example`, no trailing slash); nil:
        /// the address the server listens on, set through `siteAddress` once it is known.
        public var publicURL: String?
        /// Whether concurrent requests share one read of the data version (`SharedVersionReads`):
        /// for a store where that read is a round trip to a database server.
        public var sharesVersionReads: Bool
        /// How many uncached searches run at once, and how often an address may start one.
        public var searchLimits: SearchLimits
        /// Uploads: the quota, the largest upload, how many are processed at once.
        public var mediaLimits: MediaLimits
        /// The time scheduled entries are published by (`ScheduledPublication`): the store's
        /// clock, so that an entry dated ahead of one is not already due by the other. Tests
        /// that give the store a clock of their own give it here too.
        public var clock: @Sendable () -> Date

        public init(
            corsOrigins: [String] = [], responseCacheBytes: Int = 16 << 20, publicURL: String? = nil, sharesVersionReads: Bool = false,
            searchLimits: SearchLimits = SearchLimits(), mediaLimits: MediaLimits = MediaLimits(),
            clock: @escaping @Sendable () -> Date = Date.init
        ) {
            self.corsOrigins = corsOrigins
            self.responseCacheBytes = responseCacheBytes
            self.publicURL = publicURL
            self.sharesVersionReads = sharesVersionReads
            self.searchLimits = searchLimits
            self.mediaLimits = mediaLimits
            self.clock = clock
        }
    }

    public let router: Router
    /// Nil when the configuration keeps no answers.
    public let responseCache: ResponseCache?
    let cors: CORSPolicy
    /// Where feeds say the site is.
    public let siteAddress: SiteAddress
    /// What uncached searches pass before they read the store.
    let searchAdmission: SearchAdmission
    /// The largest upload read (`MediaLimits.maximumUploadBytes`).
    let mediaUploadLimit: Int
    /// Who a token is: routes ask it, and so does `maxBodySize` before an upload is read.
    let authenticator: Authenticator
    /// Publishes scheduled entries at their time, before any request that could read them.
    let scheduledPublication: ScheduledPublication

    /// - Parameter log: called with the cause of every 5xx answer; never handed a token or a body.
    public init(store: any DiaryStore, configuration: Configuration = Configuration(), log: @escaping @Sendable (String) -> Void = { _ in }) {
        var router = Router()
        let readVersion: @Sendable () -> Int64? = { try? store.dataVersion() }
        let sharedReads = configuration.sharesVersionReads ? SharedVersionReads(lease: store.dataVersionLease, read: readVersion) : nil
        let publication = ScheduledPublication(store: store, clock: configuration.clock) {
            if let sharedReads { sharedReads.version() } else { readVersion() }
        }
        // The version a kept answer is served under is one after whatever was due is published.
        let cache = configuration.responseCacheBytes > 0
            ? ResponseCache(byteLimit: configuration.responseCacheBytes, personal: { AtomPubPaths.contains($0) }) {
                publication.versionPublishingDue()
            }
            : nil
        let admission = SearchAdmission(limits: configuration.searchLimits)
        let handlers = Handlers(store: store, log: log, admission: admission, mediaProcessing: MediaProcessing(limits: configuration.mediaLimits))
        let site = SiteAddress(publicURL: configuration.publicURL)
        let pages = PageRenderer()
        let authenticator = Authenticator(store: store)
        Self.addRoutes(to: &router, handlers: handlers, authenticator: authenticator, cache: cache)
        Self.addPages(to: &router, handlers: handlers, cache: cache, site: site, pages: pages)
        Self.addMediaFiles(to: &router, handlers: handlers, authenticator: authenticator, pages: pages, cache: cache)
        Self.addAtomPub(to: &router, handlers: handlers, authenticator: authenticator, cache: cache, site: site)
        Self.addMicropub(to: &router, handlers: handlers, authenticator: authenticator, site: site)
        // Outside the API, people read: the router's own problems are pages too.
        router.problemResponse = { request, problem, headers in
            Response.isAPI(request) ? Response(problem: problem, headers: headers) : Response(errorPage: problem, pages: pages, headers: headers)
        }
        self.router = router
        siteAddress = site
        searchAdmission = admission
        mediaUploadLimit = configuration.mediaLimits.maximumUploadBytes
        self.authenticator = authenticator
        scheduledPublication = publication
        responseCache = cache
        cors = CORSPolicy(allowedOrigins: configuration.corsOrigins)
    }

    /// Tells feeds the address the server listens on, unless `--public-url` gave one.
    public func listening(host: String, port: Int) {
        siteAddress.listening(host: host, port: port)
    }

    public func respond(to request: Request) -> Response {
        cors.respond(to: request) { request in
            // A request the cache may answer publishes what is due as it reads the version; any
            // other does it here, before its handler reads.
            if !(responseCache?.mayAnswer(request) ?? false) {
                _ = scheduledPublication.versionPublishingDue()
            }
            return responseCache?.keptAnswer(to: request) ?? router.respond(to: request)
        }
    }

    /// Searches: answered on the transport's threads for long requests, so that a burst of
    /// them never holds the workers that serve entry reads (see `SearchAdmission`).
    public func mayTakeLong(_ request: Request) -> Bool {
        SearchAdmission.isSearch(request)
    }

    /// The media endpoint's path, made once: `maxBodySize` compares every POST with it.
    static let uploadPath = UploadMedia.path.description

    /// Uploads may be larger than any other body, for a token that may write: anyone else keeps
    /// the transport's limit, so that a client without one cannot make the server hold 20 MB
    /// per connection before its 401. Asked once per upload, before its body is read.
    public func maxBodySize(for request: Request) -> Int? {
        guard request.method == .post, request.path == Self.uploadPath || Self.isMicropubUpload(request),
            (try? authenticator.holder(for: request))?.scope == .write else { return nil }
        return mediaUploadLimit
    }

    public func respond(to error: HTTPRequestError, request: Request) -> Response {
        let title = error.status.code == 413 ? "Content Too Large" : "Bad Request"
        let problem = Problem(title: title, status: error.status.code, detail: error.reason)
        return router.problemResponse(request, problem, [.connection: "close"])
    }
}
