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
            - MCP over HTTP (--mcp-port 8080, --mcp-bind 127.0.0.1). Beyond loopback it needs TLS: --mcp-tls (the \
            server's own certificate, the export API's) or a TLS proxy in front (--mcp-public-url); plain HTTP beyond \
            loopback is refused. There OAuth is on, and the owner's bearer token is accepted too: --mcp-token, or one \
            generated once and kept in the data directory (file mcp-token, mode 0600). With a token on loopback, it \
            is required too. Clients send `Authorization: Bearer <token>`.
            - The export API for paired devices (HTTPS, --api-port 8443, --api-bind 0.0.0.0) unless --no-api.
            - With --gateway (or $OPENCLAW_GATEWAY_URL), the OpenClaw gateway node.
            - The web console (unless --no-console) on a loopback address of this install's own, \
            http://127.x.y.z:<mcp-port>/ (kept in the data directory, file console-address; 127.0.0.1 where it \
            cannot be bound, with a warning; any free port when the MCP listener holds the port on every address), \
            also while MCP listens beyond loopback: serve prints a one-time login link; `healthbridge console` prints \
            a fresh one.
            --port, --bind and --token are the old names of --mcp-port, --mcp-bind and --mcp-token.
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: "Fill the store with 60 days of demo data (up to now) first.") var demo = false
    @Option(name: [.customLong("mcp-port"), .customLong("port")], help: "MCP endpoint TCP port.")
    var mcpPort = 8080
    @Option(name: [.customLong("mcp-bind"), .customLong("bind")],
            help: "Address the MCP endpoint listens on (beyond loopback, e.g. 0.0.0.0, it needs --mcp-tls or --mcp-public-url).")
    var mcpBind = "127.0.0.1"
    @Flag(name: .customLong("mcp-tls"),
          help: "Serve MCP over TLS with this server's own certificate (the export API's, pinned by its SHA-256); OAuth on with resource https://HOST:PORT/mcp.")
    var mcpTLS = false
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
    @Option(name: .customLong("oauth-client-ca"),
            help: "A PEM file of CA certificates trusted, beside the system's, when fetching https Client ID Metadata Documents (an internal CA, tests).")
    var oauthClientCA: String?

    func validate() throws {
        guard (0...65_535).contains(mcpPort) else { throw ValidationError("--mcp-port must be between 0 and 65535") }
        if let mcpToken, mcpToken.count < 16 { throw ValidationError("--mcp-token must be at least 16 characters") }
        if let mcpPublicURL {
            do { _ = try OAuthServer.resourceURL(publicURL: mcpPublicURL) } catch {
                throw ValidationError("--mcp-public-url: \(error.message)")
            }
        }
        if let oauthClientCA {
            do { _ = try ClientTrustRoots(pemFile: oauthClientCA) } catch { throw ValidationError("--oauth-client-ca: \(error.message)") }
        }
        if mcpTLS, mcpPort == 0, mcpPublicURL == nil {
            throw ValidationError("--mcp-tls needs a fixed --mcp-port: OAuth's resource https://HOST:PORT/mcp names it")
        }
        if !Loopback.isLoopback(mcpBind), !mcpTLS, mcpPublicURL == nil {
            throw ValidationError(MCPListenerPlan.plainBeyondLoopbackMessage(bind: mcpBind))
        }
        if let gateway = gateway ?? ProcessInfo.processInfo.environment["OPENCLAW_GATEWAY_URL"] {
            do { try GatewayURLPolicy.check(gateway, allowInsecure: allowInsecureGateway) } catch {
                throw ValidationError("--gateway: \(error)")
            }
        }
    }

    func run() async throws {
        let shared = try await SharedPieces.open(store, demo: demo)
        let plan = try listenerPlan()
        let identity = try mcpIdentity(plan, home: shared.home.directory)
        let place = consolePlace(shared, plan: plan)
        let console = try place.map { try makeConsole(shared, place: $0, interfaces: interfaces(plan, console: $0)) }
        let ownListener = place?.ownListener == true
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: try mcpApplication(shared, plan: plan, identity: identity, console: ownListener ? nil : console,
                                              consoleRedirect: ownListener && plan.isLoopback ? place?.host : nil,
                                              consoleOn: console != nil)),
        ]
        if let console, let place, place.ownListener {
            services.append(.init(service: consoleApplication(console, place: place, home: shared.home.directory)))
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

    /// The MCP listener's plan from the flags (``validate()`` has refused plain HTTP beyond loopback).
    func listenerPlan() throws -> MCPListenerPlan {
        let publicResource = try mcpPublicURL.map { try OAuthServer.resourceURL(publicURL: $0) }
        return try MCPListenerPlan(bind: mcpBind, port: mcpPort, tls: mcpTLS, publicResource: publicResource,
                                   advertisedHost: { RuntimeInfo.advertisedHost(bind: $0) })
    }

    /// With `--mcp-tls`, the server's identity (the export API's): loaded, or created here, before the export API
    /// loads it, with the address agents use and this machine's LAN addresses among its names. Says so when an
    /// existing certificate does not name that address (agents then pin its fingerprint).
    func mcpIdentity(_ plan: MCPListenerPlan, home: URL) throws -> ServerIdentity? {
        guard plan.tls else { return nil }
        let (identity, _) = try ServerIdentity.loadOrCreate(home: home, hostNames: ServerIdentity.hostNames(adding: [plan.agentHost]))
        if !identity.names(plan.agentHost) {
            Output.stderr("MCP TLS: the certificate does not name \(plan.agentHost) (it was made before, for \(identity.subjectAlternativeNames.joined(separator: ", "))): agents must pin its SHA-256 fingerprint rather than check the host name. Removing \(home.appendingPathComponent(ServerIdentity.directoryName).path) makes a new identity that names it (paired devices then pair again).")
        }
        return identity
    }

    /// What runs, for the console's overview.
    func interfaces(_ plan: MCPListenerPlan, console: MCPListenerPlan.ConsolePlacement) -> [(name: String, address: String)] {
        let consoleHost = console.host.contains(":") ? "[\(console.host)]" : console.host
        var list: [(name: String, address: String)] = [(plan.tls ? "MCP (HTTPS)" : "MCP (HTTP)", plan.endpointURL),
                                                       ("Console", console.port == 0 ? "http://\(consoleHost) (a free port)"
                                                                                     : "http://\(consoleHost):\(console.port)/")]
        if !api.noAPI { list.append(("Export API (HTTPS, paired devices)", "https://\(api.apiBind):\(api.apiPort)/api/v1")) }
        if let url = gateway ?? ProcessInfo.processInfo.environment["OPENCLAW_GATEWAY_URL"] {
            list.append(("OpenClaw node", url))
        }
        return list
    }

    /// Where the console listens, or nil with `--no-console`. Always on loopback (``MCPListenerPlan/console(consoleHost:fallback:)``):
    /// normally on a listener of its own at this install's own loopback address (``ConsoleAddress``), on the MCP
    /// port's number, also while MCP listens beyond loopback (the OAuth consent page stays reachable on this
    /// machine); where that address cannot be bound, with a warning that its cookie is then shared with every web
    /// server on 127.0.0.1, at `/` of a plain loopback MCP listener as before, else on 127.0.0.1 by itself.
    func consolePlace(_ shared: SharedPieces, plan: MCPListenerPlan) -> MCPListenerPlan.ConsolePlacement? {
        if noConsole { return nil }
        let address = ConsoleAddress.resolve(home: shared.home.directory)
        if let reason = address.fallbackReason { Output.stderr("Console: \(reason).") }
        return plan.console(consoleHost: address.host, fallback: address.fallbackReason != nil)
    }

    func makeConsole(_ shared: SharedPieces, place: MCPListenerPlan.ConsolePlacement,
                     interfaces: [(name: String, address: String)]) throws -> Console {
        Console(service: shared.service, home: shared.home,
                configuration: .init(port: place.port, host: place.host, interfaces: interfaces),
                pairing: .pairedAPI(home: shared.home.directory), household: shared.household,
                person: store.personID ?? Household.ownerID, logger: CLILog.logger)
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
    /// With `identity`, over TLS with the server's own certificate.
    /// `consoleOn`: the console runs (here or on its own listener), so OAuth's consent page is its.
    func mcpApplication(_ shared: SharedPieces, plan: MCPListenerPlan, identity: ServerIdentity?, console: Console?,
                        consoleRedirect: String?, consoleOn: Bool) throws -> some Service {
        var bearer = mcpToken
        if bearer == nil, plan.needsStoredToken {
            let stored = try HealthMCPHTTP.loadOrCreateToken(in: shared.home.directory)
            bearer = stored.token
            Output.stderr("Listening beyond loopback: clients need the bearer token \(stored.created ? "just generated in" : "in") \(stored.file.path)")
        }
        let router = Router()
        let home = shared.home.directory
        let oauth = try oauthServer(shared, consentOrigin: { consoleOn ? ConsoleRuntime.load(home: home)?.origin : nil })
        oauth?.addRoutes(to: router)
        ServeCommand.addRoutes(to: router, service: shared.service, bearerToken: bearer,
                               loopbackOnly: plan.loopbackOnly,
                               authorizer: oauth?.authorizer(staticToken: bearer, anonymous: plan.anonymous(staticToken: bearer != nil)))
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
        let tls = identity.map { "\n  TLS certificate SHA-256: \($0.fingerprint) (the export API's; pin it, or trust \(shared.home.directory.appendingPathComponent(ServerIdentity.directoryName).appendingPathComponent(ServerIdentity.certificateFileName).path))" } ?? ""
        FileHandle.standardOutput.write(Data("HealthBridge MCP endpoint: \(plan.endpointURL)\(bearer != nil ? " (Authorization: Bearer <token>)" : "")\(tls)\n".utf8))
        let port = mcpPort
        let server = try identity.map { try $0.httpsServer(HealthMCPHTTP.httpServer()) } ?? HealthMCPHTTP.httpServer()
        return Application(router: router, server: server,
                           configuration: .init(address: .hostname(mcpBind, port: mcpPort), serverName: "healthbridge"),
                           onServerRunning: { channel in
                               guard let console else { return }
                               await ServeCommand.consoleStarted(console, port: channel.localAddress?.port ?? port, home: home)
                           },
                           logger: CLILog.logger)
    }

    /// The console on a listener of its own, at its own loopback address and the MCP port's number.
    func consoleApplication(_ console: Console, place: MCPListenerPlan.ConsolePlacement, home: URL) -> some Service {
        let router = Router()
        console.addRoutes(to: router)
        let port = place.port
        return Application(router: router, server: HealthMCPHTTP.httpServer(),
                           configuration: .init(address: .hostname(place.host, port: place.port),
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

    /// OAuth 2.1 for the MCP endpoint (docs/oauth.md): with `--mcp-public-url` for that URL, else for the
    /// listener's own URL (`https://HOST:PORT/mcp` with `--mcp-tls`, the loopback http URL without; plain HTTP beyond
    /// loopback never starts).
    func oauthServer(_ shared: SharedPieces, consentOrigin: @escaping @Sendable () -> String?) throws -> OAuthServer? {
        // --mcp-public-url's, else the listener's own URL: https with --mcp-tls, loopback http without.
        let resource = try listenerPlan().oauthResource
        let loopbackResource = Loopback.isLoopback(URLComponents(string: resource)?.host ?? "")
        Output.stderr("OAuth: resource \(resource), issuer \(HealthService.issuer(ofResource: resource))\(oauthDynamicRegistration ? ", dynamic registration on" : "")")
        return OAuthServer(service: shared.service,
                           configuration: .init(resource: resource, consentOrigin: consentOrigin,
                                                dynamicRegistration: oauthDynamicRegistration,
                                                allowLoopbackClients: loopbackResource,
                                                clientTrustRoots: try oauthClientCA.map { try ClientTrustRoots(pemFile: $0) }),
                           logger: CLILog.logger)
    }
}

/// What `serve`'s services share, built in one place: the data directory, the store and the service on it.
struct SharedPieces: Sendable {
    let home: HealthBridgeHome
    let service: HealthService
    /// The household, for the console's People page: the others' services are opened when first needed.
    let household: HouseholdServices

    static func open(_ options: StoreOptions, demo: Bool) async throws -> SharedPieces {
        let home = try options.resolveHome()
        let store = try await options.openStore()
        if demo {
            let report = try await DemoGenerator(days: 60, end: Date(), timeZone: .current).populate(store)
            Output.stderr("Demo data: \(report.samples) samples and \(report.workouts) workouts over 60 days, up to now.")
        }
        Output.stderr("Store: " + (options.storeLocation.map { StoreCopyCommand.redacted($0, person: options.personID) } ?? home.storeURL.path)
                      + (options.personID.map { " (person \($0))" } ?? ""))
        let service = try await HealthService.open(store: store, access: try AccessStore.open(home: home.directory),
                                                   logger: CLILog.logger)
        let household = try options.householdServices()
        try await household.use(service, for: options.personID ?? Household.ownerID)
        return SharedPieces(home: home, service: service, household: household)
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
