// swift-tools-version:6.0
import PackageDescription

// Builds on Linux with glibc (Debian 12 and Swift 6 here): the transport, the sockets and the
// terminal call glibc and libmicrohttpd directly, so there is no Apple platform to declare.
//
// Dependency arrows point one way (CONTRIBUTING.md draws them):
//   executables → DiaryServer, DiaryClient, DiaryBrowser → DiaryTerminal, MicroHTTPDServer, DiarySQLiteStore,
//   DiaryPostgresStore
//   → DiaryAPI, DiaryStore, HTTPCore, APITokens, StoreKernel
//   → ByteEncodings and the modules that wrap C (MicroHTTPDServer, TCPSockets, ProcessControl, Terminal,
//   CalendarTime, DurableFiles).
let package = Package(
    name: "Diary",
    products: [
        .executable(name: "diary-server", targets: ["diary-server"]),
        .executable(name: "diary", targets: ["diary"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/JohnSundell/Ink", from: "0.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        // `diary export --format archive` and its import: a zip written and read entry by entry.
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", exact: "0.9.20"),
    ],
    targets: [
        // MARK: C libraries and the modules that wrap them
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        /// The libmicrohttpd daemon serving an `HTTPResponder`: callbacks, suspended writes, streamed bodies.
        .target(name: "MicroHTTPDServer", dependencies: ["CMicroHTTPD", "HTTPCore", "TCPSockets", .product(name: "HTTPTypes", package: "swift-http-types")]),
        /// POSIX TCP sockets: address lookup, the listening socket, the client's connected socket.
        .target(name: "TCPSockets"),
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        /// Uploaded images made safe to keep through libvips: only the accepted loaders, the
        /// header checked before decoding, then upright, scaled down, stripped and re-encoded.
        .target(name: "VipsImages", dependencies: ["CVips"]),
        /// glibc's `<malloc.h>`, which the Glibc module leaves out.
        .systemLibrary(name: "CMalloc"),
        /// `sqlite3_db_config`, which is variadic and so cannot be called from Swift (the system SQLite, as GRDB links it).
        .target(name: "CSQLiteConfig", linkerSettings: [.linkedLibrary("sqlite3")]),
        /// This process and others: termination signals, malloc arenas, running a program, private files.
        .target(name: "ProcessControl", dependencies: ["CMalloc"]),
        /// The terminal the process runs in: whether there is one, its size, raw mode, keys and signals.
        .target(name: "Terminal"),
        /// UTC calendar time over glibc's `gmtime_r` and `timegm`, for the date formats of the API and HTTP.
        .target(name: "CalendarTime"),
        /// glibc's file calls for replacing a file all-or-nothing and durably: fsync of a file and
        /// its folder, rename, unlink, and fcntl byte-range locks (SQLite's own lock bytes, for restore).
        .target(name: "DurableFiles"),

        // MARK: Plain Swift building blocks
        /// Hex, base64url and percent encoding, written once for everyone.
        .target(name: "ByteEncodings"),
        /// A seeded generator for reproducible test data and fuzz runs.
        .target(name: "SeededRandom"),
        /// `Request` and `Response`: swift-http-types' heads with their bodies, and the responder
        /// protocol; no C, no sockets.
        .target(name: "HTTPCore", dependencies: ["ByteEncodings", .product(name: "HTTPTypes", package: "swift-http-types")]),

        // MARK: Contract and storage
        /// The API contract shared by server and client: models, rules and one type per endpoint.
        .target(name: "DiaryAPI", dependencies: ["ByteEncodings", "CalendarTime", .product(name: "HTTPTypes", package: "swift-http-types")]),
        /// The storage contract: the protocol every store fills, its value types and its errors.
        .target(name: "DiaryStore", dependencies: ["DiaryAPI"]),
        /// API tokens: generating them, and the SHA-256 that is all a store keeps of them.
        .target(name: "APITokens", dependencies: [
            "DiaryStore", "ByteEncodings", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        /// The store's rules that do not depend on the engine, written once for SQLite and PostgreSQL:
        /// who may list and read an entry, preconditions and idempotency keys, the import plan,
        /// the one builder of entry-list SQL (over each engine's dialect), and the page and
        /// snippets made of the rows read. "Kernel" because an engine is this plus its
        /// transactions, pool, schema and dialect: a rule added for a new feature goes here once.
        .target(name: "StoreKernel", dependencies: ["DiaryAPI", "DiaryStore"]),
        // The CLI's offline replica: the SQLite store filled from the change feed (never the server's transport).
        .target(name: "DiaryReplica", dependencies: ["DiarySQLiteStore", "DiaryStore", "DiaryAPI", "APITokens"]),
        /// `DiaryStore` on an SQLite file through GRDB.
        .target(
            name: "DiarySQLiteStore",
            dependencies: [
                "DiaryStore", "DiaryAPI", "StoreKernel", "DurableFiles", "ProcessControl", "CalendarTime", "CSQLiteConfig",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            resources: [.embedInCode("schema.sql"), .embedInCode("schema-v2.sql"), .embedInCode("schema-v3.sql"), .embedInCode("schema-v4.sql"), .embedInCode("schema-v5.sql"), .embedInCode("schema-v6.sql"), .embedInCode("schema-v7.sql"), .embedInCode("schema-v8.sql"), .embedInCode("schema-v9.sql"), .embedInCode("schema-v10.sql"), .embedInCode("schema-v11.sql")]
        ),
        /// `DiaryStore` on a PostgreSQL server through postgres-nio, with blocking calls for the
        /// server's worker threads and its schema in versioned migrations (`db/postgres/`).
        .target(
            name: "DiaryPostgresStore",
            dependencies: ["DiaryStore", "DiaryAPI", "StoreKernel", .product(name: "PostgresNIO", package: "postgres-nio")],
            resources: [
                .embedInCode("postgres-v1.sql"),
                .embedInCode("postgres-v2.sql"),
                .embedInCode("postgres-v3.sql"),
                .embedInCode("postgres-v4.sql"),
                .embedInCode("postgres-v5.sql"),
                .embedInCode("postgres-v6.sql"),
                .embedInCode("postgres-v7.sql"),
                .embedInCode("postgres-v8.sql"),
                .embedInCode("postgres-v9.sql"),
                .embedInCode("postgres-v10.sql"),
                .embedInCode("postgres-v11.sql"),
                .embedInCode("postgres-v12.sql"),
                .embedInCode("postgres-v13.sql"),
                .embedInCode("postgres-v14.sql"),
            ]
        ),

        // MARK: Server, client and terminal presentation
        /// Routing, handlers, cursors and the response cache, transport-free: tested in-process.
        .target(
            name: "DiaryServer",
            dependencies: [
                "DiaryAPI", "DiaryStore", "DiaryPages", "AtomPub", "HTTPCore", "APITokens", "ByteEncodings", "CalendarTime",
                "VipsImages", "Micropub", .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.embedInCode("openapi.json")]
        ),
        /// Micropub (W3C) as this diary speaks it: requests read from form, multipart and JSON
        /// bodies, their properties as an entry's fields, and the query answers; transport-free.
        .target(name: "Micropub", dependencies: ["DiaryAPI", "DiaryPages"]),
        /// The reading pages and Atom feeds as bytes: Markdown made safe, escaping, templates, the
        /// stylesheet; transport-free, so that hostile entries are tested without a server.
        .target(
            name: "DiaryPages",
            dependencies: ["DiaryAPI", "ByteEncodings", .product(name: "Ink", package: "Ink")],
            resources: [.embedInCode("style.css")]
        ),
        /// AtomPub (RFC 5023) as Hatena Blog speaks it: entries read from XML without any
        /// document type, and the service, collection and entry documents written; transport-free.
        .target(name: "AtomPub", dependencies: ["DiaryAPI", "DiaryPages", "ByteEncodings"]),
        /// Sends any `APIEndpoint` and decodes its response, in swift-http-types' heads and fields; no libmicrohttpd.
        .target(name: "DiaryClient", dependencies: ["DiaryAPI", "ByteEncodings", "TCPSockets", .product(name: "HTTPTypes", package: "swift-http-types")]),
        /// How the `diary` command shows things on a terminal or in a pipe.
        .target(name: "DiaryTerminal", dependencies: ["DiaryAPI", "Terminal"]),
        /// `diary browse`: the full-screen list of entries and the entry view, and the loop that
        /// drives them from keys, window sizes and fetched pages.
        .target(name: "DiaryBrowser", dependencies: ["DiaryAPI", "DiaryTerminal", "Terminal"]),

        /// What an operator watches: Prometheus metrics (`/metrics` on a listener of its own),
        /// the access log (bytes written by hand: swift-log cost 32 % of a cached read, see
        /// AccessLogLine), and the responder that records both per request.
        .target(name: "Observability", dependencies: [
            "HTTPCore", "DiaryStore", "CalendarTime", .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "CoreMetrics", package: "swift-metrics"),
        ]),

        // MARK: Executables
        .executableTarget(name: "diary-server", dependencies: [
            "DiaryServer", "DiarySQLiteStore", "DiaryPostgresStore", "DiaryStore", "APITokens", "MicroHTTPDServer", "ProcessControl",
            "SeededRandom", "Observability",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(
            name: "diary",
            dependencies: [
                "DiaryClient", "DiaryAPI", "DiaryTerminal", "DiaryBrowser", "ProcessControl", "Terminal", "DiaryReplica",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            // The Swift runtime and Foundation linked in: a run of the CLI spent more time
            // resolving their symbols in the dynamic loader than on its request. Compiling with
            // the flag too makes the static Foundation's own libraries (ICU, CoreFoundation) link.
            // Linked as a fixed-address executable (-no-pie): as a PIE, the loader applied 95,000
            // relative relocations to the static runtime's metadata at every start, dirtying its
            // pages; without them `diary list` took 7.4 ms of CPU instead of 8.6 and 690 page
            // faults instead of 887. The cost is that the CLI's own code and data are not
            // randomised (its libraries, heap and stack still are); the server stays a PIE.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "-no-pie"], .when(platforms: [.linux]))]
        ),

        /// Feeds arbitrary requests to the in-process router: seeded random, or libFuzzer with -DFUZZING.
        .executableTarget(
            name: "diary-fuzz",
            dependencies: ["DiaryServer", "DiarySQLiteStore", "DiaryStore", "HTTPCore", "APITokens", "SeededRandom", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Fuzz/diary-fuzz"
        ),

        // MARK: Tests
        .testTarget(name: "MicroHTTPDServerTests", dependencies: [
            "MicroHTTPDServer", "HTTPCore", "ProcessControl", .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .testTarget(name: "DiaryAPITests", dependencies: ["DiaryAPI", "ByteEncodings", "SeededRandom"]),
        /// What the store suites share (a clock, a temporary folder, error expectations), and the
        /// engine the router and end-to-end tests run on (`DIARY_TEST_ENGINE`) with their databases.
        .target(name: "StoreTestSupport", dependencies: ["DiaryStore", "DiaryAPI", "APITokens", "DiaryPostgresStore"], path: "Tests/StoreTestSupport"),
        /// The behaviour every `DiaryStore` must have, run on each engine's factory.
        .testTarget(name: "DiaryStoreConformanceTests", dependencies: [
            "StoreTestSupport", "DiarySQLiteStore", "DiaryPostgresStore", "DiaryStore", "DiaryAPI",
        ]),
        /// What only the SQLite engine has: files, pragmas, query plans, group commit, migrations.
        .testTarget(name: "DiarySQLiteStoreTests", dependencies: [
            "StoreTestSupport", "DiarySQLiteStore", "DiaryStore", "DiaryAPI", "APITokens", "StoreKernel", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        /// What only the PostgreSQL engine has: URLs and passwords, migrations under concurrency,
        /// its pool, lost connections, query plans (the server ones need DIARY_TEST_POSTGRES_URL).
        .testTarget(name: "DiaryPostgresStoreTests", dependencies: [
            "StoreTestSupport", "DiaryPostgresStore", "DiaryStore", "DiaryAPI", "APITokens", "SeededRandom",
        ]),
        /// Real images made by Pillow and exiftool in the test, through `VipsImages`.
        .testTarget(name: "VipsImagesTests", dependencies: ["VipsImages", "StoreTestSupport"]),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability", "HTTPCore"]),
        .testTarget(name: "StoreKernelTests", dependencies: ["StoreKernel", "DiaryStore", "DiaryAPI"]),
        .testTarget(name: "DiaryServerTests", dependencies: [
            "DiaryServer", "DiaryPages", "DiarySQLiteStore", "DiaryPostgresStore", "DiaryStore", "DiaryAPI", "HTTPCore", "APITokens",
            "ByteEncodings", "StoreTestSupport", .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .testTarget(name: "AtomPubTests", dependencies: ["AtomPub", "DiaryAPI"]),
        .testTarget(name: "DiaryPagesTests", dependencies: ["DiaryPages", "DiaryAPI", "SeededRandom"]),
        .testTarget(name: "DiaryClientTests", dependencies: ["DiaryClient", "DiaryAPI", .product(name: "HTTPTypes", package: "swift-http-types")]),
        .testTarget(name: "DiaryTerminalTests", dependencies: ["DiaryTerminal", "DiaryAPI"]),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal"]),
        .testTarget(name: "DiaryBrowserTests", dependencies: ["DiaryBrowser", "DiaryTerminal", "DiaryAPI", "Terminal"]),
        .testTarget(name: "EndToEndTests", dependencies: [
            "DiaryAPI", "DiaryPostgresStore", "DiarySQLiteStore", "DiaryStore", "DiaryReplica", "StoreTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ]
)
