import Synchronization

/// The absolute URL feeds put before their paths: `--public-url` when given, else the address
/// the server listens on, known only once it has started (`--port 0`). Never a request's
/// `Host` header: a feed kept in the response cache is served to everyone, and whoever sends
/// a forged `Host` must not choose the links in it.
public final class SiteAddress: Sendable {
    private let state: Mutex<(url: String, fixed: Bool)>

    /// - Parameter publicURL: `https://diary.example`, without a trailing slash; nil until the
    ///   server says where it listens.
    init(publicURL: String?) {
        state = Mutex((publicURL ?? "http://127.0.0.1", publicURL != nil))
    }

    public var url: String { state.withLock { $0.url } }

    /// Sets the address from where the server listens, unless a public URL was given.
    func listening(host: String, port: Int) {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        state.withLock { state in
            if !state.fixed { state.url = "http://\(shownHost):\(port)" }
        }
    }
}
