// swift-tools-version: 6.2
import PackageDescription

// HealthBridge's benchmark executables, kept out of the package users depend on (SwiftNIO's layout): `swift build`
// and `swift test` at the root never build them, and apps that depend on HealthBridgeKit never see them. They depend
// on the root package by path. Release builds only:
//
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench HealthBench [--days 4000]
//   scripts/ingest-bench.sh        (IngestBench)      scripts/write-bench.sh        (WriteBench)
//   scripts/people-bench.sh        (PeopleBench)
let package = Package(
    name: "HealthBridgeBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HealthBridge", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The Core issue's figures: save rate, statistics with the source merge against a plain GROUP BY, newest
        // samples, memory, routes.
        // What every benchmark reads its arguments and prints its figures with.
        .target(name: "BenchSupport"),
        .executableTarget(name: "HealthBench", dependencies: [
            "BenchSupport",
            .product(name: "HealthModel", package: "HealthBridge"),
            .product(name: "HealthStore", package: "HealthBridge"),
            .product(name: "HealthEngine", package: "HealthBridge"),
            .product(name: "HealthDemo", package: "HealthBridge"),
            .product(name: "HealthImport", package: "HealthBridge"),
            .product(name: "HealthXML", package: "HealthBridge"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Writes through the service and the change feed's long-poll (the writes issue's figures).
        .executableTarget(name: "WriteBench", dependencies: [
            "BenchSupport",
            .product(name: "HealthModel", package: "HealthBridge"),
            .product(name: "HealthAPI", package: "HealthBridge"),
            .product(name: "HealthStore", package: "HealthBridge"),
            .product(name: "HealthService", package: "HealthBridge"),
        ]),
        // Health Auto Export ingest of a generated 25 MB payload through the service (the ingest issue's figures).
        .executableTarget(name: "IngestBench", dependencies: [
            "BenchSupport",
            .product(name: "HealthModel", package: "HealthBridge"),
            .product(name: "HealthAPI", package: "HealthBridge"),
            .product(name: "HealthStore", package: "HealthBridge"),
            .product(name: "HealthService", package: "HealthBridge"),
            .product(name: "HealthAutoExport", package: "HealthBridge"),
        ]),
        // One person's statistics among many people on one PostgreSQL database (the people issue's figures).
        .executableTarget(name: "PeopleBench", dependencies: [
            "BenchSupport",
            .product(name: "HealthModel", package: "HealthBridge"),
            .product(name: "HealthStore", package: "HealthBridge"),
            .product(name: "HealthStorePostgres", package: "HealthBridge"),
            .product(name: "HealthEngine", package: "HealthBridge"),
            .product(name: "HealthDemo", package: "HealthBridge"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
