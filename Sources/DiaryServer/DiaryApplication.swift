import DiaryAPI
import DiaryStore
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

        public init(corsOrigins: [String] = [], responseCacheBytes: Int = 16 << 20) {
            self.corsOrigins = corsOrigins
            self.responseCacheBytes = responseCacheBytes
        }
    }

    public let router: Router
    /// Nil when the configuration keeps no answers.
    public let responseCache: ResponseCache?
    let cors: CORSPolicy

    /// - Parameter log: called with the cause of every 5xx answer; never handed a token or a body.
    public init(store: any DiaryStore, configuration: Configuration = Configuration(), log: @escaping @Sendable (String) -> Void = { _ in }) {
        var router = Router()
        let cache = configuration.responseCacheBytes > 0
            ? ResponseCache(byteLimit: configuration.responseCacheBytes) { try? store.dataVersion() }
            : nil
        Self.addRoutes(to: &router, handlers: Handlers(store: store, log: log), authenticator: Authenticator(store: store), cache: cache)
        self.router = router
        responseCache = cache
        cors = CORSPolicy(allowedOrigins: configuration.corsOrigins)
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        cors.respond(to: request) { request in
            responseCache?.keptAnswer(to: request) ?? router.respond(to: request)
        }
    }

    public func respond(to error: HTTPRequestError, request: HTTPRequest) -> HTTPResponse {
        let title = error.status.code == 413 ? "Content Too Large" : "Bad Request"
        return HTTPResponse(
            problem: Problem(title: title, status: error.status.code, detail: error.reason),
            headers: [.connection: "close"]
        )
    }
}
