import ArgumentParser
import Foundation
import GatewayNode
import ServiceLifecycle
import HealthService
import HealthStore
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `healthbridge node`: serves the health commands to an OpenClaw gateway until SIGINT / SIGTERM.
struct NodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node",
        abstract: "Serve the health commands (query, summary, sleep, coverage, subscribe, unsubscribe) to an OpenClaw gateway.",
        discussion: """
            Connects to the gateway as a node (role node, caps ["health"]) with an Ed25519 device identity kept in \
            the data directory, answers invokes from the store, and pushes health.update events for subscribed \
            types — also for samples another process (an import) stores. Reconnects with backoff until SIGINT or \
            SIGTERM.

            The first connection must be approved on the gateway (openclaw nodes approve <id>), and the gateway \
            must allow the health commands (gateway.nodes.allowCommands): see docs/openclaw-node.md. \
            Logs go to stderr (HEALTHBRIDGE_LOG_LEVEL=debug for more).
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "The gateway's WebSocket URL: ws://HOST:PORT or wss://HOST:PORT (the gateway listens on 18789).")
    var gateway: String

    @Option(help: "The gateway's token (its gateway.auth.token); default: $OPENCLAW_GATEWAY_TOKEN.")
    var token: String?

    @Option(name: .customLong("display-name"), help: "The name the gateway shows for this node (default: HealthBridge (hostname)).")
    var displayName: String?

    @Flag(help: "Declare health.write and health.delete (the gateway must allow them too; writes also need `healthbridge grants gateway --allow-write …`).")
    var allowWrites = false
    @Flag(name: .customLong("allow-insecure-gateway"),
          help: "Allow plain-text ws:// to a gateway that is not on this machine (the token and health data cross the network unencrypted).")
    var allowInsecureGateway = false

    func validate() throws {
        do { try GatewayURLPolicy.check(gateway, allowInsecure: allowInsecureGateway) } catch {
            throw ValidationError("--gateway: \(error)")
        }
    }

    func run() async throws {
        let logger = NodeLog.logger
        let home = try store.resolveHome()
        let service = try await store.openService()
        let token = (token ?? ProcessInfo.processInfo.environment["OPENCLAW_GATEWAY_TOKEN"])
            .flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        let gateway = gateway
        let displayName = displayName
        let allowWrites = allowWrites
        let allowInsecure = allowInsecureGateway
        // SIGINT/SIGTERM shut the node down gracefully: its session ends with a WebSocket close frame (the gateway
        // sees a clean departure); after 5 s it is cancelled.
        let node = NodeService(body: {
            try await GatewayNode.run(gateway: gateway, token: token, home: home, service: service,
                                      displayName: displayName, allowWrites: allowWrites,
                                      allowInsecureGateway: allowInsecure, logger: logger)
        })
        var configuration = ServiceGroupConfiguration(services: [.init(service: node)],
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
    }
}

enum NodeLog {
    /// stderr, `info` unless `HEALTHBRIDGE_LOG_LEVEL` says otherwise: the node says when it connects.
    static let logger: Logger = {
        var logger = Logger(label: "healthbridge.node") { label in StreamLogHandler.standardError(label: label) }
        let level = ProcessInfo.processInfo.environment["HEALTHBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .info
        return logger
    }()
}

/// `healthbridge node`'s one service.
struct NodeService: Service {
    let body: @Sendable () async throws -> Void
    func run() async throws { try await body() }
}
