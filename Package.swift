// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "HealthBridge",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "healthbridge", targets: ["healthbridge"]),
        .library(name: "HealthModel", targets: ["HealthModel"]),
        .library(name: "HealthStore", targets: ["HealthStore"]),
        .library(name: "HealthEngine", targets: ["HealthEngine"]),
        .library(name: "HealthImport", targets: ["HealthImport"]),
        .library(name: "HealthService", targets: ["HealthService"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        // Model: sample types, units, samples, sources, errors. Foundation only.
        .target(name: "HealthModel"),
        // A streaming, allocation-light XML tokenizer for Apple Health exports. No dependencies.
        .target(name: "HealthXML"),
        // The HealthStore protocol, the SQLite store (GRDB) and the in-memory store.
        .target(
            name: "HealthStore",
            dependencies: [
                "HealthModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Queries and statistics: buckets in a time zone, source-priority merge, sleep nights.
        .target(name: "HealthEngine", dependencies: ["HealthModel", "HealthStore"]),
        // Apple Health export importer (zip / folder / xml).
        .target(
            name: "HealthImport",
            dependencies: [
                "HealthModel", "HealthStore", "HealthXML",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The service every interface calls: wire payloads (OpenClaw), summaries, demo data.
        .target(name: "HealthService", dependencies: ["HealthModel", "HealthStore", "HealthEngine"]),
        .target(name: "HealthDemo", dependencies: ["HealthModel", "HealthStore"]),
        .executableTarget(
            name: "healthbridge",
            dependencies: [
                "HealthModel", "HealthStore", "HealthEngine", "HealthImport", "HealthService", "HealthDemo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "HealthBench",
            dependencies: ["HealthModel", "HealthStore", "HealthEngine", "HealthDemo", "HealthImport",
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "HealthModelTests", dependencies: ["HealthModel"]),
        .testTarget(name: "HealthXMLTests", dependencies: ["HealthXML"]),
        .testTarget(name: "HealthStoreTests", dependencies: ["HealthStore", "HealthModel"]),
        .testTarget(name: "HealthEngineTests", dependencies: ["HealthEngine", "HealthStore", "HealthModel", "HealthDemo"]),
        .testTarget(name: "HealthImportTests", dependencies: ["HealthImport", "HealthStore", "HealthModel", "HealthEngine",
                                                              .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "HealthServiceTests", dependencies: ["HealthService", "HealthStore", "HealthModel", "HealthDemo"]),
    ]
)
