// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for HealthBridge, kept out of the main package so `swift build` and `swift test` never build them.
// Build and run them with scripts/fuzz.sh: every target is compiled with AddressSanitizer and libFuzzer's coverage
// instrumentation, and links libFuzzer without its `main` (each target's main.swift calls LLVMFuzzerRunDriver, since
// SwiftPM renames an executable's own entry point).
let package = Package(
    name: "HealthBridgeFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "HealthBridge", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [
            .product(name: "HealthModel", package: "HealthBridge"),
            .product(name: "HealthAPI", package: "HealthBridge"),
            .product(name: "HealthStore", package: "HealthBridge"),
            .product(name: "HealthService", package: "HealthBridge"),
        ]),
        .executableTarget(name: "FuzzXMLScanner", dependencies: [
            "FuzzSupport", .product(name: "HealthXML", package: "HealthBridge"),
        ]),
        .executableTarget(name: "FuzzExportParser", dependencies: [
            "FuzzSupport",
            .product(name: "HealthImport", package: "HealthBridge"),
            .product(name: "HealthStore", package: "HealthBridge"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "FuzzDNSMessage", dependencies: [
            "FuzzSupport", .product(name: "PairedAPIClient", package: "HealthBridge"),
        ]),
        .executableTarget(name: "FuzzUnitsAndDates", dependencies: [
            "FuzzSupport",
            .product(name: "HealthModel", package: "HealthBridge"),
            .product(name: "HealthImport", package: "HealthBridge"),
        ]),
        .executableTarget(name: "FuzzExportRequest", dependencies: [
            "FuzzSupport",
            .product(name: "PairedAPI", package: "HealthBridge"),
            .product(name: "HealthAPI", package: "HealthBridge"),
            .product(name: "HealthSupport", package: "HealthBridge"),
            .product(name: "PairedAPIClient", package: "HealthBridge"),
        ]),
        .executableTarget(name: "FuzzHealthAutoExport", dependencies: [
            "FuzzSupport", .product(name: "HealthAutoExport", package: "HealthBridge"),
        ]),
        // The push and write paths through the service into an in-memory store, then every reader (issue 21).
        .executableTarget(name: "FuzzIngestService", dependencies: [
            "FuzzSupport", .product(name: "HealthService", package: "HealthBridge"),
            .product(name: "HealthAPI", package: "HealthBridge"),
            .product(name: "HealthModel", package: "HealthBridge"),
            .product(name: "HealthAutoExport", package: "HealthBridge"),
        ]),
        .executableTarget(name: "FuzzWriteService", dependencies: [
            "FuzzSupport", .product(name: "HealthService", package: "HealthBridge"),
            .product(name: "HealthAPI", package: "HealthBridge"),
            .product(name: "HealthModel", package: "HealthBridge"),
        ]),
        .executableTarget(name: "FuzzZipDirectory", dependencies: [
            "FuzzSupport", .product(name: "HealthImport", package: "HealthBridge"),
        ]),
    ]
)
