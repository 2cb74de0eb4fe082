import ArgumentParser
import HealthAPI
import Foundation
import HealthModel
import HealthService

struct SharingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sharing",
        abstract: "What the export API shares with paired clients, and whether it shares at all right now.",
        discussion: """
            Nothing is shared until you enable types: they are the read grants of every paired device (device:*, see \
            `healthbridge grants`). Pausing is the equivalent of the phone being locked: health \
            endpoints answer 423 `locked` with no data and the DNS-SD advertisement is withdrawn, until you resume.
            """,
        subcommands: [Show.self, Pause.self, Resume.self, Types.self, Name.self],
        defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "The sharing state and the shared types.")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try SharingCommand.print(try await store.openService().sharingStatus(), json: json)
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pause", abstract: "Stop answering with data (423 locked) until `sharing resume`.")
        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await store.openService().setSharing(.paused)
            Swift.print("Sharing paused: health endpoints answer 423 locked; the advertisement is withdrawn.")
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Share again.")
        @OptionGroup var store: StoreOptions

        func run() async throws {
            let service = try await store.openService()
            try await service.setSharing(.active)
            let shared = try await service.sharingStatus().sharedTypes
            Swift.print("Sharing resumed\(shared.isEmpty ? " (no types are shared yet: `healthbridge sharing types --enable …`)" : ": \(shared.summary)").")
        }
    }

    struct Types: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "types", abstract: "Show, enable or disable the types shared with paired clients.",
            discussion: "Example: healthbridge sharing types --enable stepCount,heartRate,sleepAnalysis")
        @OptionGroup var store: StoreOptions
        @Option(help: "Types to share, comma-separated (quantity and category types).") var enable: String?
        @Option(help: "Types to stop sharing, comma-separated (`all` for every one).") var disable: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let off = try disable.map { $0.trimmingCharacters(in: .whitespaces) == "all" ? ["*"] : try SharingCommand.resolve($0) } ?? []
            let status = try await store.openService().shareTypes(enable: try enable.map(SharingCommand.resolve) ?? [],
                                                                  disable: off)
            try SharingCommand.print(status, json: json)
        }
    }

    struct Name: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "name", abstract: "Set the device name `status` reports (default: the host name).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The name; omit to go back to the host name.") var name: String?

        func validate() throws {
            if let name, !(1...64).contains(name.count) { throw ValidationError("the name must be 1 to 64 characters") }
        }

        func run() async throws {
            try await store.openService().setDeviceName(name)
            Swift.print("Device name: \(name ?? ProcessInfo.processInfo.hostName)")
        }
    }

    /// Canonical identifiers of registered quantity and category types; anything else is a usage error.
    static func resolve(_ list: String) throws -> [String] {
        try list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.map { name in
            let type = try SampleTypeRegistry.resolve(name)
            guard type.isRegistered, type.kind == .quantity || type.kind == .category else {
                throw ValidationError("\(type.identifier) cannot be shared: only registered quantity and category types are exported")
            }
            return type.identifier
        }
    }

    static func print(_ sharing: SharingStatus, json: Bool) throws {
        let shared = sharing.sharedTypes
        let types = shared.all ? ["*"] + shared.except.sorted().map { "-" + $0 } : shared.types.sorted()
        if json {
            try Output.json(["state": AnyEncodable(sharing.state.rawValue), "types": AnyEncodable(types),
                             "deviceName": AnyEncodable(sharing.deviceName ?? ProcessInfo.processInfo.hostName),
                             "lastExport": AnyEncodable(sharing.lastExport.map { ISO8601.string($0) })])
            return
        }
        Swift.print("Sharing: \(sharing.state.rawValue)")
        Swift.print("Shared types: \(shared.isEmpty ? "none (enable with --enable stepCount,heartRate)" : shared.summary)")
        if let last = sharing.lastExport { Swift.print("Last export: \(ISO8601.string(last))") }
    }
}
