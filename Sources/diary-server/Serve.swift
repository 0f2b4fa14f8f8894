import ArgumentParser
import DiaryPostgresStore
import DiaryServer
import DiaryStore
import Foundation
import MicroHTTPDServer
import ProcessControl

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the API, the reading pages and the feeds until SIGINT or SIGTERM, then finish the requests in flight and stop."
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 takes a free one.")
    var port = 8080

    @OptionGroup var database: DatabaseOptions

    @OptionGroup var backups: ScheduledBackupOptions

    @OptionGroup var budget: RequestBudgetOptions

    @OptionGroup var observability: ObservabilityOptions

    @Option(help: """
        PostgreSQL only: seconds a request waits for the database at each step (a connection, each statement) \
        before it is answered 503: a server that is down, frozen or full never holds a request longer.
        """)
    var databaseTimeout = PostgresDiaryStore.defaultTimeout

    @Option(help: "Worker threads serving requests (default: the number of cores, at least 2; on PostgreSQL \(DatabaseSizing.postgresThreadsPerCore) per core).")
    var threads: Int?

    @Option(help: """
        PostgreSQL only: connections this server opens to the database. Each worker thread gets one; \
        writes share the rest, so that they never keep a read waiting (default: --threads + \(DatabaseSizing.defaultWriteConnections)).
        """)
    var databaseConnections: Int?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp("PostgreSQL: concurrent requests share one read of the data version (for benchmarks).", visibility: .hidden)
    )
    var sharedVersionReads = true

    @Option(help: "Seconds an idle or slow connection is kept open.")
    var connectionTimeout = HTTPServerConfiguration().connectionTimeout

    @Option(help: "Connections served at once, in all.")
    var maxConnections = HTTPServerConfiguration().connectionLimit

    @Option(help: "Connections served at once from one IP address.")
    var maxConnectionsPerIp = HTTPServerConfiguration().perIPConnectionLimit

    @Option(name: .customLong("cors-origin"), help: "An origin (https://example.com) whose browser scripts may call the API; repeatable. Default: none.")
    var corsOrigins: [String] = []

    @Option(help: "MiB of answers to public GETs kept until the next write; 0 turns the cache off.")
    var responseCache = DiaryApplication.Configuration().responseCacheBytes >> 20

    @Option(help: "The site's public address (https://diary.example), used for absolute URLs in feeds. Default: the address listened on.")
    var publicURL: String?

    @Option(help: "MiB of uploaded images each user may keep in all; past it an upload is refused with 507.")
    var mediaQuota = Int(MediaLimits().quotaBytes >> 20)

    /// `--public-url` checked and without a trailing slash: http or https, a host, no query or fragment.
    static func normalizedPublicURL(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
              components.user == nil, components.password == nil
        else { return nil }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256.") }
        if let databaseConnections {
            guard database.isPostgres else {
                throw ValidationError("--database-connections is for a PostgreSQL database; SQLite opens its own readers.")
            }
            let threads = DatabaseSizing(threads: threads, connections: nil, isPostgres: true).threads
            guard (threads + 1...DatabaseSizing.maximumConnections).contains(databaseConnections) else {
                throw ValidationError("""
                    --database-connections must be more than --threads (\(threads)): one per worker thread and at least one \
                    for writes; at most \(DatabaseSizing.maximumConnections).
                    """)
            }
        }
        guard (0...4096).contains(responseCache) else { throw ValidationError("--response-cache must be between 0 and 4096 (MiB).") }
        guard databaseTimeout > 0, databaseTimeout <= 3600 else { throw ValidationError("--database-timeout must be more than 0 and at most 3600 seconds.") }
        guard connectionTimeout > 0 else { throw ValidationError("--connection-timeout must be positive.") }
        guard maxConnections > 0, maxConnectionsPerIp > 0 else { throw ValidationError("connection limits must be positive.") }
        if let publicURL, Self.normalizedPublicURL(publicURL) == nil {
            throw ValidationError("--public-url must be an http or https URL with a host and no query, such as https://diary.example.")
        }
        try backups.validate(database: database)
        try observability.validate(publicHost: host, publicPort: port)
    }

    func run() throws {
        // First, before opening the store starts GRDB's queues' threads.
        MallocArenas.limit(4)
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = port
        let sizing = DatabaseSizing(threads: threads, connections: databaseConnections, isPostgres: database.isPostgres)
        // Searches run on threads of their own, so on PostgreSQL each running one has a connection of its own too.
        let searchLimits = budget.searchLimits(threads: min(sizing.threads, HTTPServerConfiguration.defaultThreadCount))
        configuration.threads = sizing.threads
        if let writeThreads = sizing.writeThreads { configuration.blockingThreads = writeThreads }
        let store: any DiaryStore
        do {
            store = try database.openStore(connections: sizing.connections + searchLimits.concurrency, timeout: databaseTimeout, queryTimeout: budget.queryBudget)
        } catch {
            FileHandle.standardError.write(Data("error: cannot open the database \(database.displayName): \(error)\n".utf8))
            throw ExitCode.failure
        }
        configuration.connectionTimeout = connectionTimeout
        configuration.connectionLimit = maxConnections
        configuration.perIPConnectionLimit = maxConnectionsPerIp

        let pageURL = publicURL.flatMap(Self.normalizedPublicURL)
        let application = DiaryApplication(
            store: store,
            configuration: .init(
                corsOrigins: corsOrigins, responseCacheBytes: responseCache << 20, publicURL: pageURL,
                // On SQLite the version is read in memory: sharing it would only add waiting.
                sharesVersionReads: database.isPostgres && sharedVersionReads, searchLimits: searchLimits,
                mediaLimits: MediaLimits(quotaBytes: Int64(max(0, mediaQuota)) << 20)
            )
        ) { message in
            FileHandle.standardError.write(Data("diary-server: \(message)\n".utf8))
        }
        TerminationSignals.block()
        let scheduledBackups = backups.start(database: database)
        let watching: RunningObservability?
        do {
            watching = try observability.start(store: store, application: application, backups: scheduledBackups)
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            scheduledBackups?.stop()
            throw ExitCode.failure
        }
        let server = HTTPServer(configuration: configuration, responder: watching?.instrument(application) ?? application)
        do {
            try server.start()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            watching?.stop()
            scheduledBackups?.stop()
            throw ExitCode.failure
        }
        application.listening(host: host, port: Int(server.port))
        announce(server, watching?.metricsServer)
        let signal = TerminationSignals.wait()
        FileHandle.standardError.write(Data("diary-server: signal \(signal), finishing requests in flight\n".utf8))
        server.shutdown(gracePeriod: .seconds(4))
        watching?.stop()
        scheduledBackups?.stop()
    }
}

extension Serve {
    /// `listening on http://HOST:PORT`, and with `--metrics` a second line with its address. One
    /// unbuffered write: stdout is often a pipe, and whoever waits for these lines must get them now.
    func announce(_ server: HTTPServer, _ metricsServer: HTTPServer?) {
        var announcement = "listening on http://\(host):\(server.port)\n"
        if let metricsServer {
            announcement += "metrics on http://\(metricsServer.configuration.host):\(metricsServer.port)/metrics\n"
        }
        FileHandle.standardOutput.write(Data(announcement.utf8))
    }
}

/// How many worker threads, threads answering writes and database connections a server runs.
///
/// On SQLite a worker thread waits on the CPU only (a cached read asks SQLite's data version in
/// memory), so one per core is enough, and up to 64 writes wait for their fsync together. On
/// PostgreSQL a request the cache cannot answer waits on the network, and so, once a
/// millisecond's version lease runs out, does a cached one (the promise of no stale reads
/// across servers), so more threads than cores keep the cores busy while others wait. Each worker thread has a connection of its
/// own, and writes run on at most as many threads as the connections left over: a worker never
/// waits for a connection held by a write, so reads are not starved by a burst of posts.
struct DatabaseSizing {
    /// Worker threads per core on PostgreSQL. `scripts/bench --database postgres --sizing` on 2
    /// cores, cached list page 1: 4 threads 5.9 k/s, 8 threads 8.4 k/s, 16 threads 13.6 k/s, 32
    /// threads 10.6 k/s (p99 17 to 39 ms, a machine shared with builds): 16 is the knee.
    static let postgresThreadsPerCore = 8
    /// Connections for writes beyond the workers' own, on PostgreSQL: as many writes as run at once.
    /// A write waits on the network three times and sleeps the version lease, so a few writes at
    /// once leave the cores idle. One server, 16 workers, 16 clients posting to one diary
    /// (schema v3, prepared statements): 4 write connections 1,090/s, 8 1,380/s, 12 1,660/s,
    /// 20 1,560/s. (Before schema v3 posts to one diary queued on its row, and 4 was the best.)
    static let defaultWriteConnections = 12
    /// The most connections one server may open: far more than it can use, and a typo's guard.
    static let maximumConnections = 1000

    let threads: Int
    /// The pool's size on PostgreSQL; unused on SQLite.
    let connections: Int
    /// The limit of threads answering writes, or nil for the transport's own (SQLite's group commit).
    let writeThreads: Int?

    init(threads: Int?, connections: Int?, isPostgres: Bool) {
        guard isPostgres else {
            self.threads = threads ?? HTTPServerConfiguration.defaultThreadCount
            self.connections = 2
            writeThreads = nil
            return
        }
        let cores = HTTPServerConfiguration.defaultThreadCount
        self.threads = threads ?? min(256, cores * Self.postgresThreadsPerCore)
        self.connections = connections ?? self.threads + Self.defaultWriteConnections
        writeThreads = max(1, self.connections - self.threads)
    }
}
