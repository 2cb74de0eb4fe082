import ArgumentParser
import Foundation
import HealthAPI
import HealthModel
import HealthService

struct GrantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grants",
        abstract: "Show or change who may read and write which types.",
        discussion: """
            Principals: owner (you), mcp[:NAME] (MCP clients), gateway[:NAME] (OpenClaw gateways), device:ID (a paired \
            device; device:* is every paired device), ingest:NAME, app:ID.
            Defaults: MCP clients and gateways read everything; paired devices read what device:* was granted \
            (`healthbridge sharing types --enable` edits it); nothing else is allowed. A type a principal may not \
            read looks like a type with no data, as in HealthKit.
            Examples:
              healthbridge grants
              healthbridge grants device:* --allow-read stepCount,heartRate
              healthbridge grants mcp --deny heartRate
              healthbridge grants app:diet --allow-write dietaryEnergyConsumed,bodyMass
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The principal to show or change (default: list every principal).") var principal: String?
    @Option(help: "Types it may read, comma-separated (* for all).") var allowRead: String?
    @Option(help: "Types it may write, comma-separated (* for all).") var allowWrite: String?
    @Option(help: "Types it may neither read nor write, comma-separated (* for all).") var deny: String?
    @Flag(help: "Back to the defaults (before any --allow/--deny given with it).") var reset = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let service = try await store.openService()
        let changes = allowRead != nil || allowWrite != nil || deny != nil || reset
        if changes {
            guard let principal else {
                throw ValidationError("name the principal to change, e.g. `healthbridge grants device:* --allow-read stepCount`")
            }
            let entry = try await service.updateGrants(GrantsUpdate(
                principal: principal, allowRead: allowRead.map { [$0] } ?? [], allowWrite: allowWrite.map { [$0] } ?? [],
                deny: deny.map { [$0] } ?? [], reset: reset))
            if output.json { return try Output.json(entry) }
            Output.grants([entry])
            return
        }
        var result = try await service.listGrants()
        if let principal {
            let id = try Principal(parsing: principal).id
            result.principals = result.principals.filter { $0.principal == id }
            if result.principals.isEmpty {
                let entry = try await service.grants(for: Principal(parsing: principal))
                result.principals = [.init(principal: id, read: entry.read.summary, write: entry.write.summary,
                                           explicit: false, grants: entry)]
            }
        }
        if output.json { return try Output.json(result) }
        Output.grants(result.principals)
    }
}
