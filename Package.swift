// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "HealthBridge",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "healthbridge", targets: ["healthbridge"]),
        // The client library for apps: the diet app's HealthKit API over the paired HTTPS API, and a sync engine.
        .library(name: "HealthBridgeKit", targets: ["HealthBridgeKit"]),
        .executable(name: "diet-sync", targets: ["DietSync"]),
        // HealthKit's own API (HKHealthStore, HKQuantityType(.bodyMass), HKSampleQuery…) over a paired server, for
        // platforms without Apple's HealthKit (Linux, Swift on Android): `import HealthKitBridge` in place of
        // `import HealthKit`.
        .library(name: "HealthKitBridge", targets: ["HealthKitBridge"]),
        // The diet app's HealthKit code (seed §2–§6) on HealthKitBridge, run as an app would be (`diet-healthkit`).
        .executable(name: "diet-healthkit", targets: ["DietHealthKit"]),
        // The test gateway of HealthBridgeTesting as an executable, for the soak (IntegrationTests/soak.sh). Not needed by
        // `swift build --product healthbridge`.
        .executable(name: "hb-test-gateway", targets: ["HBTestGateway"]),
        // The packages beside this one that depend on it by path, and nothing else: the fuzz targets (Fuzz/Package.swift)
        // and the benchmarks (Benchmarks/Package.swift). Not an API for apps: HealthBridgeKit is.
        .library(name: "HealthModel", targets: ["HealthModel"]),
        .library(name: "HealthSupport", targets: ["HealthSupport"]),
        .library(name: "HealthAPI", targets: ["HealthAPI"]),
        .library(name: "HealthXML", targets: ["HealthXML"]),
        .library(name: "HealthStore", targets: ["HealthStore"]),
        .library(name: "HealthStorePostgres", targets: ["HealthStorePostgres"]),
        .library(name: "HealthEngine", targets: ["HealthEngine"]),
        .library(name: "HealthImport", targets: ["HealthImport"]),
        .library(name: "HealthAutoExport", targets: ["HealthAutoExport"]),
        .library(name: "HealthService", targets: ["HealthService"]),
        .library(name: "HealthDemo", targets: ["HealthDemo"]),
        .library(name: "PairedAPIClient", targets: ["PairedAPIClient"]),
        .library(name: "PairedAPI", targets: ["PairedAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The OpenClaw gateway node (GatewayNode): the WebSocket client; its tests run a gateway on the server side.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Local-network export (PairedAPIServer / PairedAPIClient): TLS, the self-signed identity, the NIO client, mDNS.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // The PostgreSQL store (HealthStorePostgres): many people, several app servers on one database.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // OAuth for MCP (HealthOAuth): fetching Client ID Metadata Documents (no redirects, bounded size and time).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
    ],
    targets: [
        // Model: sample types, units, samples, sources, errors. Foundation only.
        .target(name: "HealthModel"),
        // Foundation-only helpers every layer may use: private files (0600/0700), the data home, the loopback rule,
        // constant-time compares, the bearer-token reading, the QR encoder of pairing codes. No dependencies.
        .target(name: "HealthSupport"),
        // The contract: every request and result type of the service's use cases, once, each with its JSON Schema.
        // MCP's output schemas, the OpenAPI document, the paired client and HealthBridgeKit all use these types.
        .target(name: "HealthAPI", dependencies: ["HealthModel"]),
        // A streaming, allocation-light XML tokenizer for Apple Health exports. No dependencies.
        .target(name: "HealthXML"),
        // The HealthStore protocol, the SQLite store (GRDB) and the in-memory store.
        .target(
            name: "HealthStore",
            dependencies: [
                "HealthModel", "HealthSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The PostgreSQL store behind the same HealthStore protocol (postgres-nio): versioned schema migrations, bulk
        // import through COPY, change notifications through LISTEN/NOTIFY, people kept apart by row-level security.
        .target(
            name: "HealthStorePostgres",
            dependencies: [
                "HealthModel", "HealthStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                // PBKDF2 for the roles' SCRAM verifiers (swift-certificates builds it already).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Queries and statistics: buckets in a time zone, source-priority merge, sleep nights.
        .target(name: "HealthEngine", dependencies: ["HealthModel", "HealthStore"]),
        // Apple Health export importer (zip / folder / xml).
        // zlib: the export's attachments (GPX routes) are inflated whole from the zip's central directory. Only
        // system headers a fresh machine has (zlib's, SQLite's) may be named here; .ci/run checks it.
        .systemLibrary(name: "CZlibInflate", path: "Sources/CZlibInflate"),
        .target(
            name: "HealthImport",
            dependencies: [
                "HealthModel", "HealthStore", "HealthXML", "CZlibInflate",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Health Auto Export payloads (the iOS app's JSON): a pull reader without a document tree, the mapping to
        // HealthKit types, units and dates.
        // Receivers' readers produce neutral ingest batches (HealthModel's IngestBatch) the service checks and commits.
        .target(name: "HealthAutoExport", dependencies: ["HealthModel", "HealthXML"]),
        // The access state under the service (`export.sqlite`): paired clients, pairing codes, sharing, ingest tokens,
        // console keys and the audit log. The service owns it; adapters reach it through HealthService's methods.
        .target(
            name: "HealthAccess",
            dependencies: [
                "HealthModel", "HealthAPI", "HealthStore", "HealthSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The service every interface calls: every use case in neutral requests and results; adapters own their dialects.
        .target(name: "HealthService", dependencies: ["HealthModel", "HealthSupport", "HealthAPI", "HealthAccess", "HealthStore", "HealthEngine", "HealthImport",
                                                      .product(name: "Logging", package: "swift-log")]),
        .target(name: "HealthDemo", dependencies: ["HealthModel", "HealthStore"]),
        // The HTTP edge shared by the paired API, the console and MCP over HTTP: HealthError renders itself with one
        // status table; one-concern middlewares (request id, limits, rate limit); route lists read from the router.
        .target(
            name: "HealthHTTP",
            dependencies: [
                "HealthModel", "HealthSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The MCP server: tools over HealthService, a stdio transport without polling, streamable HTTP at /mcp.
        .target(
            name: "HealthMCP",
            dependencies: [
                "HealthService", "HealthAPI", "HealthModel", "HealthSupport", "HealthHTTP",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // OAuth 2.1 for the MCP endpoint: protected-resource and authorization-server metadata, authorize (to the
        // console's consent page), token with rotation, revoke, Client ID Metadata Documents, the MCP token check.
        .target(
            name: "HealthOAuth",
            dependencies: [
                "HealthMCP", "HealthService", "HealthAPI", "HealthModel", "HealthSupport", "HealthHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The local-network export client and wire protocol: API payloads, the pinned-TLS HTTPS client, the paired-server
        // record, mDNS (DNS-SD) messages and browsing.
        .target(
            name: "PairedAPIClient",
            dependencies: [
                "HealthModel", "HealthAPI", "HealthSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The local-network export server: paired HTTPS /api/v1 (Hummingbird + TLS), identity, pairing codes, tokens,
        // request audit, rate limits, OpenAPI document, mDNS responder, the running server's record.
        .target(
            name: "PairedAPI",
            dependencies: [
                "PairedAPIClient", "HealthAPI", "HealthService", "HealthAccess", "HealthModel",
                "HealthSupport", "HealthHTTP", "HealthAutoExport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The OpenClaw gateway node: device identity, handshake, invokes of the health commands, health.update events
        // from the store's change feed, reconnects.
        .target(
            name: "GatewayNode",
            dependencies: [
                "HealthService", "HealthAPI", "HealthModel", "HealthSupport",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The person's web console on the loopback listener: pages over HealthService (the access use cases included).
        // What the Pairing page shows of the paired API comes from `serve` (ConsolePairing): no arrow to PairedAPI.
        .target(
            name: "HealthConsole",
            dependencies: [
                "HealthService", "HealthModel", "HealthImport", "HealthAPI",
                "HealthSupport", "HealthHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "healthbridge",
            dependencies: [
                "HealthModel", "HealthStore", "HealthStorePostgres", "HealthEngine", "HealthImport", "HealthService", "HealthAccess", "HealthDemo",
                "HealthAutoExport", "HealthSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                "HealthMCP",
                .product(name: "Hummingbird", package: "hummingbird"),
                "PairedAPI", "PairedAPIClient", "HealthAPI",
                "GatewayNode", "HealthConsole", "HealthOAuth",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // HealthBridgeKit: a client of a paired `healthbridge serve` with the diet app's HealthKit API (pairing,
        // authorization, reads, idempotent writes, observers over the change feed) and a SyncEngine with a durable
        // outbox in the app's SQLite file. Depends on the model and the pinned HTTPS client only, never on the store,
        // the service or the server.
        .target(
            name: "HealthBridgeKit",
            dependencies: [
                "HealthModel", "HealthAPI", "PairedAPIClient", "HealthSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The example app of HealthBridgeKit: a command-line diet log (`diet-sync`).
        .executableTarget(
            name: "DietSync",
            dependencies: [
                "HealthBridgeKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/DietSync"
        ),
        // HealthKit's API with HealthKit's names, labels, error codes and semantics, answered by a paired server through
        // HealthBridgeKit: object types, quantities and units, samples, the five queries, save/delete, authorization,
        // background delivery from anchors persisted in the app's container.
        .target(
            name: "HealthKitBridge",
            dependencies: [
                "HealthBridgeKit", "HealthAPI", "HealthModel", "HealthSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The seed's HealthKit code, compiled as the app wrote it (Swift 5 language mode, as an iOS app of its time),
        // with only `import HealthKit` replaced and the Linux stand-ins for UIKit/SwiftUI/Combine/Objective-C.
        .executableTarget(
            name: "DietHealthKit",
            dependencies: [
                "HealthKitBridge", "HealthBridgeKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/DietHealthKit",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Shared by the test targets only (never a product): demo worlds by days/seed/zone, temporary data homes and
        // the OpenClaw test gateway.
        .target(
            name: "HealthBridgeTesting",
            dependencies: [
                "HealthModel", "HealthAPI", "HealthStore", "HealthStorePostgres", "HealthService", "HealthDemo", "GatewayNode", "HealthSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `hb-test-gateway`: TestGateway on a loopback port, driven over a line-based JSON protocol on stdin/stdout.
        .executableTarget(
            name: "HBTestGateway",
            dependencies: ["HealthBridgeTesting", "GatewayNode", "HealthAPI", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "HealthModelTests", dependencies: ["HealthModel"]),
        .testTarget(name: "HealthAccessTests", dependencies: ["HealthAccess", "HealthAPI", "HealthModel"]),
        .testTarget(name: "HealthSupportTests", dependencies: ["HealthSupport"]),
        .testTarget(name: "HealthHTTPTests", dependencies: ["HealthHTTP", "HealthModel",
                                                            .product(name: "Hummingbird", package: "hummingbird"),
                                                            .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                            .product(name: "HTTPTypes", package: "swift-http-types")]),
        // HealthBridgeKit against a real `healthbridge serve` process (the built binary): the example end to end, the
        // SIGKILL fault test, the seed's HealthKitSyncService ported.
        .testTarget(name: "HealthBridgeKitTests", dependencies: ["HealthBridgeKit", "HealthKitBridge", "HealthBridgeTesting", "PairedAPIClient", "HealthAPI", "HealthModel",
                                                                .product(name: "GRDB", package: "GRDB.swift"),
                                                                .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HealthXMLTests", dependencies: ["HealthXML"]),
        .testTarget(name: "HealthStoreTests", dependencies: ["HealthStore", "HealthBridgeTesting", "HealthModel", "HealthSupport",
                                                            .product(name: "GRDB", package: "GRDB.swift")]),
        // What only the PostgreSQL store has: migrations, LISTEN/NOTIFY between stores, the database going away, row-level
        // security. Needs HEALTHBRIDGE_POSTGRES_URL (IntegrationTests/postgres.sh starts a private cluster).
        .testTarget(name: "HealthStorePostgresTests", dependencies: ["HealthStorePostgres", "HealthStore", "HealthBridgeTesting", "HealthModel", "HealthImport", "HealthService", "HealthAPI",
                                                                    .product(name: "PostgresNIO", package: "postgres-nio"),
                                                                    .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HealthEngineTests", dependencies: ["HealthBridgeTesting", "HealthEngine", "HealthStore", "HealthModel", "HealthDemo"]),
        .testTarget(name: "HealthImportTests", dependencies: ["HealthImport", "HealthStore", "HealthModel", "HealthEngine",
                                                              .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "HealthAutoExportTests", dependencies: ["HealthAutoExport", "HealthService", "HealthStore",
                                                                  "HealthModel", "HealthAPI"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "HealthServiceTests", dependencies: ["HealthBridgeTesting", "HealthService", "HealthSupport", "HealthAPI", "HealthAccess", "HealthStore", "HealthModel", "HealthDemo",
                                                              "HealthImport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HealthMCPTests", dependencies: ["HealthBridgeTesting", "HealthMCP", "HealthAPI", "HealthService", "HealthStore", "HealthModel", "HealthSupport",
                                                           "HealthDemo", .product(name: "MCP", package: "swift-sdk"),
                                                           .product(name: "Hummingbird", package: "hummingbird"),
                                                           .product(name: "NIOCore", package: "swift-nio"),
                                                           .product(name: "NIOPosix", package: "swift-nio"),
                                                           .product(name: "Logging", package: "swift-log"),
                                                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        .testTarget(name: "HealthOAuthTests", dependencies: ["HealthBridgeTesting", "HealthOAuth", "HealthMCP", "HealthConsole", "HealthService",
                                                             "HealthAccess", "HealthAPI", "HealthStore", "HealthModel", "HealthSupport",
                                                             .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                             .product(name: "Hummingbird", package: "hummingbird"),
                                                             .product(name: "Logging", package: "swift-log"),
                                                             .product(name: "NIOCore", package: "swift-nio"),
                                                             .product(name: "NIOSSL", package: "swift-nio-ssl"),
                                                             .product(name: "HummingbirdCore", package: "hummingbird"),
                                                             .product(name: "HummingbirdTLS", package: "hummingbird"),
                                                             .product(name: "X509", package: "swift-certificates"),
                                                             .product(name: "SwiftASN1", package: "swift-asn1"),
                                                             .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "PairedAPITests", dependencies: ["HealthBridgeTesting", "PairedAPI", "PairedAPIClient", "HealthAPI", "HealthService", "HealthAccess", "HealthStore", "HealthHTTP",
                                                              "HealthModel", .product(name: "Logging", package: "swift-log"),
                                                              .product(name: "NIOTLS", package: "swift-nio"),
                                                              .product(name: "Hummingbird", package: "hummingbird"),
                                                              .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                              .product(name: "NIOSSL", package: "swift-nio-ssl"),
                                                              .product(name: "NIOCore", package: "swift-nio"),
                                                              .product(name: "NIOPosix", package: "swift-nio"),
                                                              .product(name: "NIOHTTP1", package: "swift-nio"),
                                                              .product(name: "NIOEmbedded", package: "swift-nio"),
                                                              .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                                                              .product(name: "X509", package: "swift-certificates"),
                                                              .product(name: "SwiftASN1", package: "swift-asn1"),
                                                              .product(name: "HTTPTypes", package: "swift-http-types"),
                                                              .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "GatewayNodeTests", dependencies: ["HealthBridgeTesting", "GatewayNode", "HealthService", "HealthAutoExport", "HealthAPI", "HealthStore", "HealthModel", "HealthSupport",
                                                             "HealthDemo",
                                                             .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                                                             .product(name: "Crypto", package: "swift-crypto"),
                                                             .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HealthConsoleTests", dependencies: ["HealthBridgeTesting", "HealthConsole", "PairedAPI", "HealthAPI", "HealthService", "HealthAccess", "HealthSupport",
                                                               "HealthStore", "HealthModel", .product(name: "Logging", package: "swift-log"),
                                                               .product(name: "Hummingbird", package: "hummingbird"),
                                                               .product(name: "NIOCore", package: "swift-nio"),
                                                               .product(name: "NIOPosix", package: "swift-nio")]),
        // The interfaces side by side: the built CLI, MCP, the HTTPS API and the node answer alike (parity), and the
        // CLI's output and exit codes.
        // Issue 27: every credential made for one person, sent to every route of another person's servers, on
        // SQLite and PostgreSQL.
        .testTarget(name: "PeopleIsolationTests", dependencies: ["HealthBridgeTesting", "HealthService", "HealthAccess", "HealthStore",
                                                                 "HealthStorePostgres", "HealthModel", "HealthAPI", "HealthHTTP",
                                                                 "PairedAPI", "HealthMCP", "HealthOAuth", "HealthConsole", "HealthSupport",
                                                                 .product(name: "Hummingbird", package: "hummingbird"),
                                                                 .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                                 .product(name: "HTTPTypes", package: "swift-http-types"),
                                                                 .product(name: "Crypto", package: "swift-crypto"),
                                                                 .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "InterfaceTests", dependencies: ["HealthBridgeTesting", "HealthService", "HealthAccess", "HealthMCP", "PairedAPI", "PairedAPIClient", "HealthAPI",
                                                           "GatewayNode", "HealthStore", "HealthModel",
                                                           .product(name: "MCP", package: "swift-sdk"),
                                                           .product(name: "Logging", package: "swift-log")]),
    ]
)