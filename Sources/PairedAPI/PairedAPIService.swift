import HealthAPI
import PairedAPIClient
import Foundation
import HealthAccess
import HealthModel
import HealthService
import HealthSupport
import Logging
import ServiceLifecycle
import Synchronization

/// What `healthbridge serve` runs for the export API, beside the MCP endpoint.
public struct PairedAPIServiceOptions: Sendable {
    public var server = PairedAPIServerConfiguration()
    /// The optional plain-HTTP Health Auto Export listener (`serve --ingest-port P --ingest-bind ADDR`); nil: off.
    public var ingestPort: Int?
    public var ingestHost = "127.0.0.1"
    /// Advertise `_healthsync._tcp` by mDNS while sharing is active.
    public var advertise = true
    public var mdnsPort = ServiceBrowser.mdnsPort
    /// Print a one-time pairing code and its QR code once listening.
    public var showPairingCode = true
    public var pairingCodeLifetime: TimeInterval = 300
    /// How often the sharing switch is checked (it is flipped by `healthbridge sharing pause|resume` elsewhere).
    public var watchInterval: Duration = .seconds(1)

    public init() {}
}

/// The export API as a service: loads or creates the TLS identity, opens `export.sqlite`, serves `/api/v1` over
/// TLS, prints the fingerprint and a pairing code, advertises by mDNS while sharing is active, withdraws the
/// advertisement when sharing is paused. If the listener cannot start (port taken), it says why and waits for
/// shutdown, so that the process's other services keep running.
public final class PairedAPIService: Service, Sendable {
    let home: URL
    let healthService: HealthService
    let options: PairedAPIServiceOptions
    let logger: Logger
    let console: @Sendable (String) -> Void

    public init(home: URL, service: HealthService, options: PairedAPIServiceOptions, logger: Logger,
                console: @escaping @Sendable (String) -> Void) {
        self.home = home
        self.healthService = service
        self.options = options
        self.logger = logger
        self.console = console
    }

    public func run() async throws {
        let (identity, created) = try ServerIdentity.loadOrCreate(home: home)
        let state = try AccessStore.open(home: home)
        let server = PairedAPIServer(configuration: options.server, identity: identity, state: state,
                                  service: healthService, logger: logger)
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try server.application { port in
            portContinuation.yield(port)
            portContinuation.finish()
        }
        let announcer = Announcer(service: self, server: server, ports: ports, created: created)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: app),
            .init(service: announcer, successTerminationBehavior: .ignore),
        ]
        if let ingestPort = options.ingestPort {
            let host = options.ingestHost
            let console = self.console
            if !Loopback.isLoopback(host) {
                console("""
                    WARNING: the Health Auto Export receiver listens on plain HTTP on \(host):\(ingestPort), beyond this \
                    machine: ingest tokens and health data cross the network unencrypted. Prefer the HTTPS API, or bind \
                    --ingest-bind 127.0.0.1 behind a TLS proxy.
                    """)
            }
            services.append(.init(service: try server.ingestApplication(host: host, port: ingestPort) { port in
                let shown = host.contains(":") ? "[\(host)]" : host
                console("Health Auto Export receiver (plain HTTP): http://\(shown):\(port)\(PairedAPIServer.ingestPath)")
            }))
        }
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        do {
            try await group.run()
        } catch {
            let message = "\(error)"
            console("Export API not started on \(options.server.host):\(options.server.port): \(message.prefix(300)). The other services keep running.")
            try? await gracefulShutdown()
        }
        RuntimeInfo.remove(home: home)
    }

    /// Prints the banner and a pairing code once the port is known, then keeps the advertisement in step with the
    /// sharing switch until shutdown.
    struct Announcer: Service {
        let service: PairedAPIService
        let server: PairedAPIServer
        let ports: AsyncStream<Int>
        let created: Bool

        func run() async throws {
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { return }
            try await cancelWhenGracefulShutdown {
                try await self.announce(port: port)
            }
        }

        func announce(port: Int) async throws {
            let options = service.options
            let console = service.console
            let bind = options.server.host
            let host = RuntimeInfo.advertisedHost(bind: bind)
            let identity = server.identity
            RuntimeInfo(host: host, port: port, bind: bind, fingerprint: identity.fingerprint,
                        pid: Int(getpid())).save(home: service.home)
            // The owner's service on the server's access state: sharing, shared types, pairing codes.
            let owner = service.healthService.withAccess(server.state, logger: service.logger)
            let status = try await owner.sharingStatus()
            var sharing = status.state
            var shared = status.sharedTypes
            let deviceName = status.deviceName
            console("""
                Export API (HTTPS): https://\(host):\(port)\(PairedAPIProtocol.basePath)\(bind == "0.0.0.0" ? " (listening on every interface)" : "")
                TLS certificate SHA-256: \(identity.fingerprint)\(created ? " (new identity)" : "")
                Rate limit: \(options.server.rateLimit > 0 ? "\(Int(options.server.rateLimit)) requests/s per client" : "off")
                \(Self.sharingLine(sharing, shared))
                """)
            if options.showPairingCode {
                let payload = try await PairingCard.issue(service: owner, identity: identity, host: host,
                                                          port: port, lifetime: options.pairingCodeLifetime)
                console(try PairingCard.render(payload, qr: true))
            }
            // Advertisement.
            var responder: MDNSResponder?
            if options.advertise {
                if Loopback.isLoopback(bind) {
                    console("DNS-SD: not advertised (the API listens on loopback only; use --api-bind 0.0.0.0 to share on the network).")
                } else {
                    var configuration = MDNSResponder.Configuration(
                        instanceName: "HealthBridge on \(deviceName ?? options.server.defaultDeviceName)",
                        hostName: RuntimeInfo.mdnsHostName(), port: port,
                        txt: ["fp=\(identity.fingerprint.prefix(16))", "api=\(PairedAPIProtocol.version)", "v=\(PairedAPIServer.serverVersion)"],
                        addresses: bind == "0.0.0.0" ? nil : [bind])
                    configuration.bindPort = options.mdnsPort
                    let candidate = MDNSResponder(configuration: configuration, logger: service.logger)
                    do {
                        try await candidate.start()
                        responder = candidate
                        if sharing == .paused { await candidate.withdraw() }
                        console("DNS-SD: advertising \(PairedAPIProtocol.serviceType) as “\(configuration.instanceName)”\(sharing == .paused ? " once sharing resumes" : "").")
                    } catch {
                        console("DNS-SD: not advertising — \(error). The API still serves; pair with the code above.")
                    }
                }
            }
            // Follow the sharing switch until shutdown, then say goodbye on the network.
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: options.watchInterval)
                } catch {
                    break
                }
                guard let now = try? await owner.sharingStatus() else { continue }
                if now.state != sharing {
                    switch now.state {
                    case .paused:
                        console("Sharing paused: health endpoints answer 423 locked\(responder != nil ? "; advertisement withdrawn" : "").")
                        await responder?.withdraw()
                    case .active:
                        console("Sharing resumed\(responder != nil ? "; advertising again" : "").")
                        await responder?.announce()
                    }
                }
                if now.sharedTypes != shared { console(Self.sharingLine(now.state, now.sharedTypes)) }
                sharing = now.state
                shared = now.sharedTypes
            }
            await responder?.stop()
        }

        static func sharingLine(_ sharing: SharingState, _ shared: TypeGrant) -> String {
            let types = shared.isEmpty
                ? "none yet — `healthbridge sharing types --enable stepCount,heartRate` shares them"
                : shared.summary
            return "Sharing: \(sharing.rawValue); shared types: \(types)"
        }
    }
}

/// Issues pairing codes and renders them: the JSON payload, a terminal QR code, the command to pair with.
public enum PairingCard {
    /// A new one-time code and its payload; with `appId`, a code issued for that app (the client redeeming it acts
    /// as `app:<appId>`).
    ///
    /// ```swift
    /// let card = try await PairingCard.issue(service: owner, identity: identity, host: "192.168.1.20", port: 8443,
    ///                                        lifetime: 300)
    /// ```
    public static func issue(service: HealthService, identity: ServerIdentity, host: String, port: Int,
                             lifetime: TimeInterval, appId: String? = nil) async throws -> PairingPayload {
        let issued = try await service.issuePairingCode(lifetime: lifetime, appId: appId)
        return PairingPayload(host: host, port: port, fingerprint: identity.fingerprint, code: issued.code,
                              expires: ISO8601.string(issued.expires), appId: appId)
    }

    public static func render(_ payload: PairingPayload, qr: Bool) throws -> String {
        let json = try payload.json()
        let who = payload.appId.map { " for the app \($0) (the client will act as app:\($0))" } ?? " for a device"
        var lines = ["One-time pairing code \(payload.code)\(who) (expires \(payload.expires)). Scan, or run on the client:"]
        if qr {
            lines.append(try QRCode.encode(Array(json.utf8), level: .medium).terminalString())
        }
        lines.append("  healthbridge pair --qr '\(json)'")
        lines.append("  or: healthbridge pair --host \(payload.host) --port \(payload.port) --code \(payload.code) --fingerprint \(payload.fingerprint)")
        return lines.joined(separator: "\n")
    }
}

/// Where the running server listens, written by `serve` (`<home>/export-server.json`, 0600) so that `pair-code` in
/// another terminal can put the right host and port in its payload.
public struct RuntimeInfo: Codable, Sendable, Equatable {
    public var host: String
    public var port: Int
    public var bind: String
    public var fingerprint: String
    public var pid: Int

    public static let fileName = "export-server.json"

    public init(host: String, port: Int, bind: String, fingerprint: String, pid: Int) {
        self.host = host; self.port = port; self.bind = bind; self.fingerprint = fingerprint; self.pid = pid
    }

    public func save(home: URL) {
        guard let data = try? JSONEncoder.wire.encode(self) else { return }
        try? PairedServerStore.writePrivate(data, to: home.appendingPathComponent(Self.fileName))
    }

    /// The record of a server that is still running, if any.
    public static func load(home: URL) -> RuntimeInfo? {
        guard let data = try? Data(contentsOf: home.appendingPathComponent(fileName)),
              let info = try? JSONDecoder().decode(RuntimeInfo.self, from: data) else { return nil }
        return kill(pid_t(info.pid), 0) == 0 || errno == EPERM ? info : nil
    }

    public static func remove(home: URL) {
        let url = home.appendingPathComponent(fileName)
        if let info = try? JSONDecoder().decode(RuntimeInfo.self, from: Data(contentsOf: url)), info.pid == Int(getpid()) {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// The host clients should use: the bind address, or this machine's first LAN address when bound to every
    /// interface (loopback when it has none).
    public static func advertisedHost(bind: String) -> String {
        if bind == "0.0.0.0" || bind == "::" {
            return MDNSResponder.localIPv4Addresses().first ?? "127.0.0.1"
        }
        return bind
    }

    /// `<short host name>.local`.
    public static func mdnsHostName() -> String {
        let short = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "healthbridge"
        return (short.isEmpty || short == "localhost" ? "healthbridge" : short) + ".local"
    }
}
