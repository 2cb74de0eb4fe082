import ArgumentParser
import HealthAPI
import PairedAPIClient
import PairedAPI
import Foundation
import HealthService
import HealthStore
import HealthSupport
import Hummingbird

struct PairCodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair-code",
        abstract: "Issue a one-time code that pairs a client with the export API, with its QR code.",
        discussion: """
            The code expires (5 minutes by default); five wrong attempts from one address lock that address out. The QR code and the JSON \
            payload carry {host, port, fingerprint, code, expires, appId}; on the client: healthbridge pair --qr '<json>'. \
            Host and port come from the running `healthbridge serve` when there is one. With --app ID the code is issued for \
            that app (HealthBridgeKit): the client redeeming it acts as app:ID. A client can act as an app only with such a code.
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print only the JSON payload.") var json = false
    @Option(help: "Lifetime of the code in seconds (30…3600).") var ttl = 300
    @Option(help: "Host to put in the payload (default: where `serve` listens, else this machine's LAN address).")
    var host: String?
    @Option(help: "Port to put in the payload (default: the running server's, else 8443).") var port: Int?
    @Option(help: "Also write the QR code as an SVG file.") var svg: String?
    @Option(help: "Also write the QR code as a PNG file.") var png: String?
    @Flag(help: "Do not draw the QR code in the terminal.") var noQr = false
    @Option(name: .customLong("app"),
            help: "Issue the code for this app id (reverse DNS, e.g. org.example.dietsync): its client acts as app:ID.")
    var app: String?

    func validate() throws {
        if let app, !PairRequest.isValidAppId(app) {
            throw ValidationError("--app must be 1 to 128 letters, digits, '.', '-' or '_'")
        }
        guard (30...3600).contains(ttl) else { throw ValidationError("--ttl must be between 30 and 3600 seconds") }
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() async throws {
        let home = try store.resolveHome().directory
        let (identity, _) = try ServerIdentity.loadOrCreate(home: home)
        let service = try await store.openService()
        let running = RuntimeInfo.load(home: home)
        if let running, running.fingerprint != identity.fingerprint {
            Output.stderr("warning: the running server presents another certificate (\(running.fingerprint)); restart it")
        }
        let payload = try await PairingCard.issue(
            service: service, identity: identity,
            host: host ?? running?.host ?? RuntimeInfo.advertisedHost(bind: "0.0.0.0"),
            port: port ?? running?.port ?? PairedAPIProtocol.defaultPort, lifetime: TimeInterval(ttl), appId: app)
        if let app {
            // Never a silent second client: the owner is told when the app already has one.
            let existing = try await service.pairedClients(ofApp: app)
            if !existing.isEmpty {
                Output.stderr("note: app:\(app) already has \(existing.count) paired client(s) (\(existing.map(\.id).joined(separator: ", "))); this code pairs another one acting as app:\(app) (`healthbridge clients` lists them)")
            }
        }
        let qr = try QRCode.encode(Array(try payload.json().utf8), level: .medium)
        if let svg { try PairedServerStore.writePrivate(Data(qr.svg().utf8), to: URL(fileURLWithPath: svg)) }
        if let png { try PairedServerStore.writePrivate(Data(qr.png()), to: URL(fileURLWithPath: png)) }
        if json {
            print(try payload.json())
            return
        }
        if running == nil, host == nil {
            Output.stderr("note: no `healthbridge serve` is running for this data directory; the payload assumes \(payload.host):\(payload.port)")
        }
        print(try PairingCard.render(payload, qr: !noQr))
        for file in [svg, png].compactMap({ $0 }) { print("QR code written to \(file)") }
    }
}

/// The export API options of `healthbridge serve`: a second listener, HTTPS with the pinned identity, beside /mcp.
struct ExportAPIOptions: ParsableArguments {
    @Option(name: .customLong("api-port"), help: "HTTPS port of the local-network export API (/api/v1).")
    var apiPort = PairedAPIProtocol.defaultPort
    @Option(name: .customLong("api-bind"),
            help: "Address the export API listens on: 0.0.0.0 shares on the local network, 127.0.0.1 keeps it on this machine.")
    var apiBind = "0.0.0.0"
    @Option(name: .customLong("rate-limit"), help: "Export API requests per second per paired client (0 disables).")
    var rateLimit = 20
    @Flag(name: .customLong("no-api"), help: "Do not start the export API.") var noAPI = false
    @Flag(name: .customLong("no-advertise"), help: "Do not advertise the export API by DNS-SD (mDNS).")
    var noAdvertise = false
    @Option(name: .customLong("ingest-port"),
            help: "Also receive Health Auto Export pushes on plain HTTP on this port (off by default; the HTTPS API always has /api/v1/ingest/health-auto-export).")
    var ingestPort: Int?
    @Option(name: .customLong("ingest-bind"),
            help: "Address of the plain-HTTP ingest listener (default 127.0.0.1; beyond loopback the data crosses the network unencrypted).")
    var ingestBind = "127.0.0.1"

    func validate() throws {
        guard (0...65_535).contains(apiPort) else { throw ValidationError("--api-port must be between 0 and 65535") }
        if let ingestPort, !(0...65_535).contains(ingestPort) {
            throw ValidationError("--ingest-port must be between 0 and 65535")
        }
        if ingestPort != nil, noAPI { throw ValidationError("--ingest-port runs beside the export API: drop --no-api") }
        guard rateLimit >= 0 else { throw ValidationError("--rate-limit must be 0 (off) or more") }
    }

    /// The export API as a service of `serve`'s group, nil with --no-api.
    func exportService(_ shared: SharedPieces) -> PairedAPIService? {
        guard !noAPI else { return nil }
        var options = PairedAPIServiceOptions()
        options.server.host = apiBind
        options.server.port = apiPort
        options.server.rateLimit = Double(rateLimit)
        options.advertise = !noAdvertise
        options.ingestPort = ingestPort
        options.ingestHost = ingestBind
        return PairedAPIService(home: shared.home.directory, service: shared.service, options: options,
                             logger: CLILog.logger, console: { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) })
    }
}
