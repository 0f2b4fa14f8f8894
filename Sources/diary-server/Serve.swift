import ArgumentParser
import DiaryPostgresStore
import DiaryServer
import DiaryStore
import Foundation
import MicroHTTPDServer
import ProcessControl

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the API, the reading pages and the feeds until SIGINT or SIGTERM, then finish the requests in flight and stop."
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 takes a free one.")
    var port = 8080

    @OptionGroup var database: DatabaseOptions

    @Option(help: """
        PostgreSQL only: seconds a request waits for the database at each step (a connection, each statement) \
        before it is answered 503: a server that is down, frozen or full never holds a request longer.
        """)
    var databaseTimeout = PostgresDiaryStore.defaultTimeout

    @Option(help: "Worker threads serving requests (default: the number of cores, at least 2).")
    var threads: Int?

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
        guard (0...4096).contains(responseCache) else { throw ValidationError("--response-cache must be between 0 and 4096 (MiB).") }
        guard databaseTimeout > 0, databaseTimeout <= 3600 else { throw ValidationError("--database-timeout must be more than 0 and at most 3600 seconds.") }
        guard connectionTimeout > 0 else { throw ValidationError("--connection-timeout must be positive.") }
        guard maxConnections > 0, maxConnectionsPerIp > 0 else { throw ValidationError("connection limits must be positive.") }
        if let publicURL, Self.normalizedPublicURL(publicURL) == nil {
            throw ValidationError("--public-url must be an http or https URL with a host and no query, such as https://diary.example.")
        }
    }

    func run() throws {
        // First, before opening the store starts GRDB's queues' threads.
        MallocArenas.limit(4)
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = port
        if let threads { configuration.threads = threads }
        let store: any DiaryStore
        do {
            // PostgreSQL: a connection for each worker thread, so that no request waits for another's.
            store = try database.openStore(connections: configuration.threads, timeout: databaseTimeout)
        } catch {
            FileHandle.standardError.write(Data("error: cannot open the database \(database.displayName): \(error)\n".utf8))
            throw ExitCode.failure
        }
        configuration.connectionTimeout = connectionTimeout
        configuration.connectionLimit = maxConnections
        configuration.perIPConnectionLimit = maxConnectionsPerIp

        let pageURL = publicURL.flatMap(Self.normalizedPublicURL)
        let application = DiaryApplication(
            store: store, configuration: .init(corsOrigins: corsOrigins, responseCacheBytes: responseCache << 20, publicURL: pageURL)
        ) { message in
            FileHandle.standardError.write(Data("diary-server: \(message)\n".utf8))
        }
        TerminationSignals.block()
        let server = HTTPServer(configuration: configuration, responder: application)
        do {
            try server.start()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
        application.listening(host: host, port: Int(server.port))
        // One unbuffered write: stdout is often a pipe, and whoever waits for this line must get it now.
        FileHandle.standardOutput.write(Data("listening on http://\(host):\(server.port)\n".utf8))
        let signal = TerminationSignals.wait()
        FileHandle.standardError.write(Data("diary-server: signal \(signal), finishing requests in flight\n".utf8))
        server.shutdown(gracePeriod: .seconds(4))
    }
}
