import ArgumentParser
import HealthAPI
import PairedAPIClient
import Foundation

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "The paired export server's status: version, device name, sharing state, shared types, last export.")

    @OptionGroup var client: ClientOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let remote = try client.remote()
        let status = try await remote.status()
        if json {
            try Output.json(status)
            return
        }
        print("Server: \(status.deviceName) at \(remote.server.host):\(remote.server.port) (HealthBridge \(status.serverVersion), API v\(status.apiVersion))")
        print("Sharing: \(status.sharing.rawValue)")
        print("Shared types: \(status.enabledTypes.isEmpty ? "none" : status.enabledTypes.joined(separator: ", "))")
        print("Last export: \(status.lastExport ?? "never")")
    }
}
