// swift-tools-version:6.0
import PackageDescription

// Dependency arrows point one way:
//   executables → DiaryServer / DiaryClient / DiarySQLiteStore
//   → DiaryAPI, DiaryStore, HTTPSockets, HTTPCore → C libraries (libmicrohttpd, SQLite).
let package = Package(
    name: "Diary",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "diary-server", targets: ["diary-server"]),
        .executable(name: "diary", targets: ["diary"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // MARK: C libraries
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),

        // MARK: Transport
        /// Plain HTTP request and response values and the responder protocol; no C, no sockets.
        .target(name: "HTTPCore"),
        /// The only module that touches C pointers: the libmicrohttpd daemon serving an
        /// `HTTPResponder`, and the plain client socket the CLI sends its request on.
        .target(name: "HTTPSockets", dependencies: ["CMicroHTTPD", "HTTPCore"]),

        // MARK: Contract and storage
        /// The API contract shared by server and client: models and one type per endpoint.
        .target(name: "DiaryAPI"),
        /// The storage protocol the server depends on, with its errors and token hashing.
        .target(name: "DiaryStore", dependencies: [
            "DiaryAPI",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        /// `DiaryStore` on an SQLite file through GRDB.
        .target(
            name: "DiarySQLiteStore",
            dependencies: ["DiaryStore", "DiaryAPI", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.embedInCode("schema.sql")]
        ),

        // MARK: Server and client
        /// Routing and handlers, transport-free: tested in-process without sockets.
        .target(
            name: "DiaryServer",
            dependencies: ["DiaryAPI", "DiaryStore", "HTTPCore"],
            resources: [.embedInCode("openapi.json")]
        ),
        /// Sends any `APIEndpoint` and decodes its response.
        .target(name: "DiaryClient", dependencies: ["DiaryAPI", "HTTPSockets"]),

        // MARK: Executables
        .executableTarget(name: "diary-server", dependencies: [
            "DiaryServer", "DiarySQLiteStore", "DiaryStore", "HTTPSockets",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(
            name: "diary",
            dependencies: [
                "DiaryClient", "DiaryAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The Swift runtime and Foundation linked in: a run of the CLI spent more time
            // resolving their symbols in the dynamic loader than on its request. Compiling with
            // the flag too makes the static Foundation's own libraries (ICU, CoreFoundation) link.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux]))]
        ),

        /// Feeds arbitrary requests to the in-process router: seeded random, or libFuzzer with -DFUZZING.
        .executableTarget(
            name: "diary-fuzz", dependencies: ["DiaryServer", "DiarySQLiteStore", "DiaryStore", "HTTPCore"], path: "Fuzz/diary-fuzz"
        ),

        // MARK: Tests
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPSockets", "HTTPCore"]),
        .testTarget(name: "DiaryAPITests", dependencies: ["DiaryAPI"]),
        .testTarget(name: "DiaryStoreTests", dependencies: ["DiarySQLiteStore", "DiaryStore", "DiaryAPI"]),
        .testTarget(name: "DiaryServerTests", dependencies: [
            "DiaryServer", "DiarySQLiteStore", "DiaryStore", "DiaryAPI", "HTTPCore",
        ]),
        .testTarget(name: "DiaryClientTests", dependencies: ["DiaryClient", "DiaryAPI"]),
        .testTarget(name: "EndToEndTests", dependencies: ["DiaryAPI"]),
    ]
)
