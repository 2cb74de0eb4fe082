import ArgumentParser
import Foundation
import GatewayNode
import HealthDemo
import HealthMCP
import HealthService
import HealthStore
import Hummingbird
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve your data: MCP at /mcp (loopback), the paired HTTPS export API, and an OpenClaw node.",
        discussion: """
            The MCP endpoint listens on 127.0.0.1 unless --bind says otherwise. Beyond loopback a bearer token is required: --token, \
            or one generated once and kept in the data directory (file mcp-token, mode 0600). With --token on \
            loopback, the token is required too. Clients send it as `Authorization: Bearer <token>`. \
            The export API (HTTPS, paired clients) listens on --api-port (8443) unless --no-api. With --gateway (or \
            $OPENCLAW_GATEWAY_URL), the OpenClaw gateway node runs too.
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: "Fill the store with 60 days of demo data (up to now) first.") var demo = false
    @Option(help: "TCP port.") var port = 8080
    @Option(help: "Address to listen on (0.0.0.0 for every interface; needs a token).") var bind = "127.0.0.1"
    @Option(help: "Bearer token clients must send (default beyond loopback: generated and stored in the data directory).")
    var token: String?
    /// The local-network export API (HTTPS, paired clients): --api-port, --api-bind, --rate-limit, --no-api.
    @OptionGroup(title: "Export API") var api: ExportAPIOptions
    @Option(help: "An OpenClaw gateway to connect to as a health node, ws(s)://HOST:PORT (default: $OPENCLAW_GATEWAY_URL).")
    var gateway: String?
    @Option(help: "The gateway's token (default: $OPENCLAW_GATEWAY_TOKEN).") var gatewayToken: String?
    @Flag(name: .customLong("allow-insecure-gateway"),
          help: "Allow plain-text ws:// to a gateway that is not on this machine (the token and health data cross the network unencrypted).")
    var allowInsecureGateway = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let token, token.count < 16 { throw ValidationError("--token must be at least 16 characters") }
        if let gateway = gateway ?? ProcessInfo.processInfo.environment["OPENCLAW_GATEWAY_URL"] {
            do { try GatewayURLPolicy.check(gateway, allowInsecure: allowInsecureGateway) } catch {
                throw ValidationError("--gateway: \(error)")
            }
        }
    }

    func run() async throws {
        let home = try store.resolveHome()
        let sqlite = try store.openStore()
        if demo {
            let report = try await DemoGenerator(days: 60, end: Date(), timeZone: .current).populate(sqlite)
            Output.stderr("Demo data: \(report.samples) samples and \(report.workouts) workouts over 60 days, up to now.")
        }
        let service = try await HealthService.open(store: sqlite)
        let loopback = HealthMCPHTTP.isLoopback(bind)
        var bearer = token
        if bearer == nil, !loopback {
            let stored = try HealthMCPHTTP.loadOrCreateToken(in: home.directory)
            bearer = stored.token
            Output.stderr("Listening beyond loopback: clients need the bearer token \(stored.created ? "just generated in" : "in") \(stored.file.path)")
        }
        let router = Router()
        ServeCommand.addRoutes(to: router, service: service, bearerToken: bearer, loopbackOnly: loopback)
        let app = Application(router: router, server: HealthMCPHTTP.httpServer(),
                              configuration: .init(address: .hostname(bind, port: port), serverName: "healthbridge"),
                              logger: CLILog.logger)
        let host = bind.contains(":") ? "[\(bind)]" : bind
        FileHandle.standardOutput.write(Data("HealthBridge MCP endpoint: http://\(host):\(port)/mcp\(bearer != nil ? " (Authorization: Bearer <token>)" : "")\n".utf8))
        let environment = ProcessInfo.processInfo.environment
        let gatewayURL = gateway ?? environment["OPENCLAW_GATEWAY_URL"]
        let gatewayToken = self.gatewayToken ?? environment["OPENCLAW_GATEWAY_TOKEN"]
        let allowInsecureGateway = allowInsecureGateway
        try await withThrowingDiscardingTaskGroup { group in
            if let gatewayURL {
                Output.stderr("OpenClaw node: connecting to \(gatewayURL)")
                group.addTask {
                    try await GatewayNode.run(gateway: gatewayURL, token: gatewayToken, home: home, service: service,
                                              allowInsecureGateway: allowInsecureGateway, logger: CLILog.logger)
                }
            }
            try await api.run(alongside: app, home: home, service: service)
            group.cancelAll()
        }
    }

    /// Every route `serve` hosts. Add new ones (REST, pairing) here.
    static func addRoutes(to router: Router<BasicRequestContext>, service: HealthService, bearerToken: String?,
                          loopbackOnly: Bool) {
        let toolbox = HealthToolbox(service: service, logger: CLILog.logger)
        HealthMCPHTTP.addRoutes(to: router, toolbox: toolbox,
                                options: .init(bearerToken: bearerToken, loopbackOnly: loopbackOnly),
                                logger: CLILog.logger)
    }
}
