import HTTPCore
import Synchronization

/// Answers to open GETs, kept by request target and served again while the store's data
/// version is the one they were read under: a hot page is read and encoded once per write,
/// not once per request.
///
/// Never stale: the version is read before the reads that build an answer, and every lookup
/// reads it again first, so once a write has committed (before its response is sent) no
/// answer from before it is served. A write by another process changes the version too.
/// What is kept is the response itself, so a kept answer is byte for byte the one it replaces.
public final class ResponseCache: Sendable {
    /// How many bytes of answers are kept; past it, arbitrary answers are dropped until a
    /// quarter of it is free.
    public let byteLimit: Int
    private let currentVersion: @Sendable () -> Int64?
    /// Paths whose answers depend on who asks and are kept per credentials (`key(_:)`): AtomPub's.
    private let isPersonal: @Sendable (Substring) -> Bool

    private struct State {
        /// The version every kept answer was read under.
        var version: Int64?
        var answers: [String: Representation] = [:]
        var bytes = 0
        var hits = 0
        var misses = 0
    }
    private let state = Mutex(State())

    /// - Parameter version: the store's data version (`DiaryStore.dataVersion()`), or nil when
    ///   it cannot be read (nothing is served from the cache then).
    /// - Parameter personal: whether a path's answers are kept per credentials (`key(_:)`).
    public init(byteLimit: Int, personal: @escaping @Sendable (Substring) -> Bool = { _ in false }, version: @escaping @Sendable () -> Int64?) {
        self.byteLimit = byteLimit
        isPersonal = personal
        currentVersion = version
    }

    /// Whether a kept answer may answer `request`, which then reads the version first: a GET or
    /// HEAD without a token, or on a personal path with credentials answers are kept for.
    func mayAnswer(_ request: Request) -> Bool {
        answerableKey(request) != nil
    }

    /// The key of the kept answer that may answer `request` (see `mayAnswer`), or nil.
    private func answerableKey(_ request: Request) -> String? {
        guard request.method == .get || request.method == .head,
              request.headers[.authorization] == nil || isPersonal(request.path) else { return nil }
        return key(request)
    }

    /// Answers served from the cache and answers built since the start, and the bytes kept now: for tests.
    public var counts: (hits: Int, misses: Int, bytes: Int) {
        state.withLock { ($0.hits, $0.misses, $0.bytes) }
    }

    /// The kept answer to a GET or HEAD of this target, found before any routing (which was a
    /// tenth of a cached read); nil when none is kept, and the route then builds the answer.
    /// Only routes keep answers, so a target that is kept belongs to a cacheable route. Only
    /// answers to anonymous readers are kept, and on a personal path answers to the exact
    /// credentials sent: any other request with a token is never answered from here.
    public func keptAnswer(to request: Request) -> Response? {
        guard let key = answerableKey(request), let version = currentVersion() else { return nil }
        let kept = state.withLock { state -> Representation? in
            guard state.version == version, let found = state.answers[key] else { return nil }
            state.hits += 1
            return found
        }
        return kept?.answer(to: request)
    }

    /// The kept answer to `request`, or else the one `build` makes, kept when it is a
    /// representation; `build` carries a response that must not be kept (an error, a stream,
    /// a write's answer) as `Uncached`.
    func answer(
        _ request: Request,
        build: () -> Result<Representation, Uncached>
    ) -> Response {
        guard let key = key(request), let version = currentVersion() else {
            return build().response(to: request)
        }
        let kept = state.withLock { state -> Representation? in
            let found = state.version == version ? state.answers[key] : nil
            if found != nil { state.hits += 1 } else { state.misses += 1 }
            return found
        }
        if let kept { return kept.answer(to: request) }
        let built = build()
        if case .success(let representation) = built {
            keep(representation.labelled(route: request.route), key: key, version: version)
        }
        return built.response(to: request)
    }

    /// A response that is not kept, carried out of `build`.
    struct Uncached: Error {
        let response: Response
    }

    /// The target (path and query) as sent: two targets that differ in any byte are kept apart.
    /// On a personal path, the target and the `Authorization` header as sent, so that an
    /// answer is served again only to whoever sends the same credentials (a target holds no
    /// line break, so no two pairs make one key); nil (never kept) without credentials, or
    /// with a scheme whose header is the same for everyone (WSSE's is `WSSE
    /// profile="UsernameToken"`, its secret in another header).
    private func key(_ request: Request) -> String? {
        guard isPersonal(request.path) else { return request.target }
        guard let credentials = request.headers[.authorization] else { return nil }
        let scheme = credentials.prefix { $0 != " " }.lowercased()
        guard scheme == "basic" || scheme == "bearer" else { return nil }
        return request.target + "\n" + credentials
    }

    private func keep(_ built: Representation, key: String, version: Int64) {
        let size = built.size + key.utf8.count
        guard size <= byteLimit else { return }
        let representation = built.kept()
        state.withLock { state in
            // A version can only move forward; an answer read under an older one is dropped,
            // and a newer one replaces everything kept under the old.
            if let kept = state.version, kept > version { return }
            if state.version != version {
                state.answers.removeAll(keepingCapacity: true)
                state.bytes = 0
                state.version = version
            }
            if let replaced = state.answers.removeValue(forKey: key) {
                state.bytes -= replaced.size + key.utf8.count
            }
            if state.bytes + size > byteLimit {
                // Full: a quarter of the budget is freed, in the dictionary's own (arbitrary)
                // order, so that a scan through many pages does not empty the cache at a stroke.
                let target = byteLimit * 3 / 4 - size
                while state.bytes > target, let (evicted, answer) = state.answers.first {
                    state.answers.removeValue(forKey: evicted)
                    state.bytes -= answer.size + evicted.utf8.count
                }
            }
            state.answers[key] = representation
            state.bytes += size
        }
    }
}

extension Result where Success == Representation, Failure == ResponseCache.Uncached {
    /// What to send: the representation's answer to `request` (200 or 304), or the response as built.
    func response(to request: Request) -> Response {
        switch self {
        case .success(let representation): representation.answer(to: request)
        case .failure(let uncached): uncached.response
        }
    }
}
