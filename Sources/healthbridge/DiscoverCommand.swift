import ArgumentParser
import HealthAPI
import PairedAPIClient
import Foundation

struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Find HealthBridge export servers on the local network (DNS-SD _healthsync._tcp over mDNS).",
        discussion: """
            The TXT record carries the first 16 hex digits of the certificate fingerprint: compare them with the \
            pairing payload. Pairing still needs the full fingerprint and a one-time code from the server.
            """)

    @Option(help: "Seconds to listen for answers.") var timeout = 2.0
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (0.2...30).contains(timeout) else { throw ValidationError("--timeout must be between 0.2 and 30 seconds") }
    }

    func run() async throws {
        let services = try await ServiceBrowser.browse(timeout: .milliseconds(Int(timeout * 1000)))
        if json {
            try Output.json(services)
            return
        }
        if services.isEmpty {
            print("No \(PairedAPIProtocol.serviceType) servers answered within \(timeout) s (is `healthbridge serve` running with sharing active, on this network?).")
            return
        }
        Output.table(["name", "host", "port", "addresses", "fingerprint prefix", "api"], services.map { service in
            [service.instance, service.host, String(service.port), service.addresses.joined(separator: ", "),
             service.txt["fp"] ?? "", service.txt["api"] ?? ""]
        })
    }
}
