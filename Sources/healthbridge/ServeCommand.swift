import ArgumentParser
import HealthAPI
import PairedAPI
import Foundation
import HealthAccess
import GatewayNode
import HealthConsole
import HealthDemo
import HealthMCP
import HealthOAuth
import HealthService
import HealthStore
import HealthSupport
import Hummingbird
import Logging
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve your data: MCP at /mcp (loopback), the paired HTTPS export API, and an OpenClaw node.",
        discussion: """
            Three listeners run as one service group and stop together on SIGINT or SIGTERM:
            - MCP over HTTP (--mcp-port 8080, --mcp-bind 127.0.0.1). Beyond loopback a bearer token is required: \
            --mcp-token, or one generated once and kept in the data directory (file mcp-token, mode 0600). With a \
            token on loopback, it is required too. Clients send `Authorization: Bearer <token>`.
            - The export API for paired devices (HTTPS, --api-port 8443, --api-bind 0.0.0.0) unless --no-api.
            - With --gateway (or $OPENCLAW_GATEWAY_URL), the OpenClaw gateway node.
            - The web console (unless --no-console) on a loopback address of this install's own, \
            http://127.x.y.z:<mcp-port>/ (kept in the data directory, file console-address; 127.0.0.1 where it \
            cannot be bound, with a warning), only while the MCP listener is on loopback: serve prints a one-time \
            login link; `healthbridge console` prints a fresh one.
            --port, --bind and --token are the old names of --mcp-port, --mcp-bind and --mcp-token.
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: "Fill the store with 60 days of demo data (up to now) first.") var demo = false
    @Option(name: [.customLong("mcp-port"), .customLong("port")], help: "MCP endpoint TCP port.")
    var mcpPort = 8080
    @Option(name: [.customLong("mcp-bind"), .customLong("bind")],
            help: "Address the MCP endpoint listens on (0.0.0.0 for every interface; needs a token).")
    var mcpBind = "127.0.0.1"
    @Option(name: [.customLong("mcp-token"), .customLong("token")],
            help: "Bearer token MCP clients must send (default beyond loopback: generated and stored in the data directory).")
    var mcpToken: String?
    /// The local-network export API (HTTPS, paired clients): --api-port, --api-bind, --rate-limit, --no-api.
    @OptionGroup(title: "Export API") var api: ExportAPIOptions
    @Option(help: "An OpenClaw gateway to connect to as a health node, ws(s)://HOST:PORT (default: $OPENCLAW_GATEWAY_URL).")
    var gateway: String?
    @Option(help: "The gateway's token (default: $OPENCLAW_GATEWAY_TOKEN).") var gatewayToken: String?
    @Flag(help: "The node declares health.write and health.delete (the gateway must allow them too).")
    var gatewayWrites = false
    @Flag(name: .customLong("allow-insecure-gateway"),
          help: "Allow plain-text ws:// to a gateway that is not on this machine (the token and health data cross the network unencrypted).")
    var allowInsecureGateway = false
    @Flag(name: .customLong("no-console"), help: "Do not serve the web console.")
    var noConsole = false
    @Option(name: .customLong("mcp-public-url"),
            help: "The MCP endpoint's URL as agents reach it through a reverse proxy or tunnel (https://HOST[/mcp]): OAuth's resource and issuer; every request then needs a token.")
    var mcpPublicURL: String?
    @Flag(name: .customLong("oauth-dynamic-registration"),
          help: "Let MCP clients register themselves with OAuth (RFC 7591); off by default (Client ID Metadata Documents only).")
    var oauthDynamicRegistration = false

    func validate() throws {
        guard (0...65_535).contains(mcpPort) else { throw ValidationError("--mcp-port must be between 0 and 65535") }
        if let mcpToken, mcpToken.count < 16 { throw ValidationError("--mcp-token must be at least 16 characters") }
        if let mcpPublicURL {
            do { _ = try OAuthServer.resourceURL(publicURL: mcpPublicURL) } catch {
                throw ValidationError("--mcp-public-url: \(error.message)")
            }
        }
        if let gateway = gateway ?? ProcessInfo.processInfo.environment["OPENCLAW_GATEWAY_URL"] {
            do { try GatewayURLPolicy.check(gateway, allowInsecure: allowInsecureGateway) } catch {
                throw ValidationError("--gateway: \(error)")
            }
        }
    }

    func run() async throws {
        let shared = try await SharedPieces.open(store, demo: demo)
        let place = consolePlace(shared)
        let console = try place.map { try makeConsole(shared, host: $0.host, interfaces: interfaces(console: $0.host)) }
        let ownListener = place?.ownListener == true
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: try mcpApplication(shared, console: ownListener ? nil : console,
                                              consoleRedirect: ownListener ? place?.host : nil)),
        ]
        if let console, let place, place.ownListener {
            services.append(.init(service: consoleApplication(console, host: place.host, home: shared.home.directory)))
        }
        if let export = api.exportService(shared) { services.append(.init(service: export)) }
        let environment = ProcessInfo.processInfo.environment
        if let url = gateway ?? environment["OPENCLAW_GATEWAY_URL"] {
            Output.stderr("OpenClaw node: connecting to \(url)")
            services.append(.init(service: GatewayNodeService(
                gateway: url, token: gatewayToken ?? environment["OPENCLAW_GATEWAY_TOKEN"], allowWrites: gatewayWrites,
                allowInsecureGateway: allowInsecureGateway, shared: shared)))
        }
        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: CLILog.logger))
        try await group.run()
    }

    /// What runs, for the console's overview.
    func interfaces(console: String) -> [(name: String, address: String)] {
        let host = mcpBind.contains(":") ? "[\(mcpBind)]" : mcpBind
        let consoleHost = console.contains(":") ? "[\(console)]" : console
        var list: [(name: String, address: String)] = [("MCP (HTTP)", "http://\(host):\(mcpPort)/mcp"),
                                                       ("Console", "http://\(consoleHost):\(mcpPort)/")]
        if !api.noAPI { list.append(("Export API (HTTPS, paired devices)", "https://\(api.apiBind):\(api.apiPort)/api/v1")) }
        if let url = gateway ?? ProcessInfo.processInfo.environment["OPENCLAW_GATEWAY_URL"] {
            list.append(("OpenClaw node", url))
        }
        return list
    }

    /// Where the console listens, or nil when it is off (`--no-console`, or the MCP listener beyond loopback: said
    /// so). Normally on a listener of its own at this install's own loopback address (``ConsoleAddress``), on the
    /// MCP port's number; where that address cannot be bound, as before at `/` of the MCP listener, with a warning
    /// that its cookie is then shared with every web server on that address.
    func consolePlace(_ shared: SharedPieces) -> (host: String, ownListener: Bool)? {
        if noConsole { return nil }
        guard Loopback.isLoopback(mcpBind) else {
            Output.stderr("Console: off. It is served only while the MCP listener is on loopback, and that is on \(mcpBind) (bind it to 127.0.0.1 for the console, or pass --no-console).")
            return nil
        }
        let address = ConsoleAddress.resolve(home: shared.home.directory)
        if let reason = address.fallbackReason {
            Output.stderr("Console: \(reason).")
            return (mcpBind == "localhost" ? ConsoleAddress.shared : mcpBind, false)
        }
        // An address the MCP listener holds (set by hand in the file): share its listener rather than fail to bind.
        if address.host == mcpBind { return (address.host, false) }
        return (address.host, true)
    }

    func makeConsole(_ shared: SharedPieces, host: String, interfaces: [(name: String, address: String)]) throws -> Console {
        Console(service: shared.service, home: shared.home,
                configuration: .init(port: mcpPort, host: host, interfaces: interfaces),
                pairing: .pairedAPI(home: shared.home.directory), logger: CLILog.logger)
    }

    /// Once the console listens: records where (`<home>/console.json`, for `healthbridge console`) and prints the
    /// first one-time login link.
    static func consoleStarted(_ console: Console, port: Int, home: URL) async {
        console.setPort(port)
        ConsoleRuntime(origin: console.origin, pid: Int(getpid())).save(home: home)
        if let url = try? await console.loginURL() {
            FileHandle.standardOutput.write(Data("HealthBridge console: \(url)\n  (a one-time link, valid for 10 minutes; `healthbridge console` prints a fresh one)\n".utf8))
        }
    }

    /// The MCP endpoint over streamable HTTP; with `console`, the console at `/` too (the fallback); with
    /// `consoleRedirect`, `/` sends a browser to the console's own address instead (no cookie is set or read here).
    func mcpApplication(_ shared: SharedPieces, console: Console?, consoleRedirect: String?) throws -> some Service {
        let loopback = Loopback.isLoopback(mcpBind)
        var bearer = mcpToken
        if bearer == nil, !loopback {
            let stored = try HealthMCPHTTP.loadOrCreateToken(in: shared.home.directory)
            bearer = stored.token
            Output.stderr("Listening beyond loopback: clients need the bearer token \(stored.created ? "just generated in" : "in") \(stored.file.path)")
        }
        let router = Router()
        let home = shared.home.directory
        let consoleOn = console != nil || consoleRedirect != nil
        let oauth = try oauthServer(shared, consentOrigin: { consoleOn ? ConsoleRuntime.load(home: home)?.origin : nil })
        oauth?.addRoutes(to: router)
        ServeCommand.addRoutes(to: router, service: shared.service, bearerToken: bearer,
                               loopbackOnly: loopback && (mcpPublicURL.map { Loopback.isLoopback(URLComponents(string: $0)?.host ?? "") } ?? true),
                               authorizer: oauth?.authorizer(staticToken: bearer, anonymous: loopback && bearer == nil && mcpPublicURL == nil))
        if let console {
            console.addRoutes(to: router)
        } else if let consoleRedirect {
            router.get("/") { _, _ in
                var headers = HTTPFields()
                headers[.location] = (ConsoleRuntime.load(home: home)?.origin ?? "http://\(consoleRedirect)") + "/"
                headers[.cacheControl] = "no-store"
                return Response(status: .seeOther, headers: headers)
            }
        }
        let host = mcpBind.contains(":") ? "[\(mcpBind)]" : mcpBind
        FileHandle.standardOutput.write(Data("HealthBridge MCP endpoint: http://\(host):\(mcpPort)/mcp\(bearer != nil ? " (Authorization: Bearer <token>)" : "")\n".utf8))
        let port = mcpPort
        return Application(router: router, server: HealthMCPHTTP.httpServer(),
                           configuration: .init(address: .hostname(mcpBind, port: mcpPort), serverName: "healthbridge"),
                           onServerRunning: { channel in
                               guard let console else { return }
                               await ServeCommand.consoleStarted(console, port: channel.localAddress?.port ?? port, home: home)
                           },
                           logger: CLILog.logger)
    }

    /// The console on a listener of its own, at its own loopback address and the MCP port's number.
    func consoleApplication(_ console: Console, host: String, home: URL) -> some Service {
        let router = Router()
        console.addRoutes(to: router)
        let port = mcpPort
        return Application(router: router, server: HealthMCPHTTP.httpServer(),
                           configuration: .init(address: .hostname(host, port: mcpPort),
                                                serverName: "healthbridge"),
                           onServerRunning: { channel in
                               await ServeCommand.consoleStarted(console, port: channel.localAddress?.port ?? port, home: home)
                           },
                           logger: CLILog.logger)
    }

    /// Every route the MCP listener hosts.
    static func addRoutes(to router: Router<BasicRequestContext>, service: HealthService, bearerToken: String?,
                          loopbackOnly: Bool, authorizer: (any MCPRequestAuthorizer)? = nil) {
        let toolbox = HealthToolbox(service: service, logger: CLILog.logger)
        HealthMCPHTTP.addRoutes(to: router, toolbox: toolbox,
                                options: .init(bearerToken: bearerToken, loopbackOnly: loopbackOnly, authorizer: authorizer),
                                logger: CLILog.logger)
    }

    /// OAuth 2.1 for the MCP endpoint (docs/oauth.md): with `--mcp-public-url` for that URL, else on a loopback
    /// listener for its own loopback URL; nil beyond loopback without a public URL (no TLS in front: the static
    /// bearer token stays the only way in).
    func oauthServer(_ shared: SharedPieces, consentOrigin: @escaping @Sendable () -> String?) throws -> OAuthServer? {
        let resource: String
        if let mcpPublicURL {
            resource = try OAuthServer.resourceURL(publicURL: mcpPublicURL)
        } else if Loopback.isLoopback(mcpBind) {
            let host = mcpBind == "localhost" ? "127.0.0.1" : (mcpBind.contains(":") ? "[\(mcpBind)]" : mcpBind)
            resource = "http://\(host):\(mcpPort)/mcp"
        } else {
            Output.stderr("OAuth: off. Beyond loopback it needs TLS in front: put a reverse proxy or tunnel there and pass --mcp-public-url https://… (docs/oauth.md).")
            return nil
        }
        let loopbackResource = Loopback.isLoopback(URLComponents(string: resource)?.host ?? "")
        Output.stderr("OAuth: resource \(resource), issuer \(HealthService.issuer(ofResource: resource))\(oauthDynamicRegistration ? ", dynamic registration on" : "")")
        return OAuthServer(service: shared.service,
                           configuration: .init(resource: resource, consentOrigin: consentOrigin,
                                                dynamicRegistration: oauthDynamicRegistration,
                                                allowLoopbackClients: loopbackResource),
                           logger: CLILog.logger)
    }
}

/// What `serve`'s services share, built in one place: the data directory, the store and the service on it.
struct SharedPieces: Sendable {
    let home: HealthBridgeHome
    let service: HealthService

    static func open(_ options: StoreOptions, demo: Bool) async throws -> SharedPieces {
        let home = try options.resolveHome()
        let store = try await options.openStore()
        if demo {
            let report = try await DemoGenerator(days: 60, end: Date(), timeZone: .current).populate(store)
            Output.stderr("Demo data: \(report.samples) samples and \(report.workouts) workouts over 60 days, up to now.")
        }
        Output.stderr("Store: " + (options.storeLocation.map { StoreCopyCommand.redacted($0, person: options.personID) } ?? home.storeURL.path)
                      + (options.personID.map { " (person \($0))" } ?? ""))
        return SharedPieces(home: home, service: try await HealthService.open(
            store: store, access: try AccessStore.open(home: home.directory), logger: CLILog.logger))
    }
}

/// The OpenClaw gateway node as a service of `serve`'s group: it connects and reconnects until shutdown.
struct GatewayNodeService: Service {
    let gateway: String
    let token: String?
    let allowWrites: Bool
    let allowInsecureGateway: Bool
    let shared: SharedPieces

    /// Not cancelled on shutdown: the node sees the group's graceful shutdown, closes its session with a close frame
    /// and returns.
    func run() async throws {
        try await GatewayNode.run(gateway: gateway, token: token, home: shared.home, service: shared.service,
                                  allowWrites: allowWrites, allowInsecureGateway: allowInsecureGateway,
                                  logger: CLILog.logger)
    }
}

extension ConsolePairing {
    /// The paired API of the data directory `home`, as the console's Pairing page shows it: the pinned identity's
    /// fingerprint and where a running `serve` listens (its `export-server.json`), else this machine's LAN address on
    /// the default port.
    static func pairedAPI(home: URL) -> ConsolePairing {
        ConsolePairing(fingerprint: { try ServerIdentity.loadOrCreate(home: home).0.fingerprint },
                       listening: { RuntimeInfo.load(home: home).map { Address(host: $0.host, port: $0.port) } },
                       fallback: { Address(host: RuntimeInfo.advertisedHost(bind: "0.0.0.0"), port: PairedAPIProtocol.defaultPort) })
    }
}
