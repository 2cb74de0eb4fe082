import ArgumentParser
import Foundation
import HealthAccess
import HealthModel
import HealthService

struct ClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients", abstract: "The clients paired with the export API; revoke one.",
        subcommands: [List.self, Revoke.self, OAuth.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Paired clients, revoked ones too.")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let clients = try await store.openService().pairedClients()
            if json {
                try Output.json(clients.map { client in
                    ["id": AnyEncodable(client.id), "name": AnyEncodable(client.name), "auditId": AnyEncodable(client.auditId),
                     "principal": AnyEncodable(ClientsCommand.principal(client)),
                     "pairedAt": AnyEncodable(ISO8601.string(client.createdAt)),
                     "lastSeen": AnyEncodable(client.lastSeenAt.map { ISO8601.string($0) }),
                     "revokedAt": AnyEncodable(client.revokedAt.map { ISO8601.string($0) })]
                })
                return
            }
            if clients.isEmpty {
                print("No paired clients. Pair one with `healthbridge pair-code`.")
                return
            }
            Output.table(["id", "name", "acts as", "audit id", "paired", "last seen", "state"], clients.map { client in
                [client.id, client.name, ClientsCommand.principal(client), client.auditId, Output.date(client.createdAt, .current),
                 Output.date(client.lastSeenAt, .current), client.isRevoked ? "revoked" : "active"]
            })
        }
    }

    /// The principal a client acts as: `app:<appId>` when it redeemed a code issued for that app
    /// (`healthbridge pair-code --app ID`), else `device:<clientId>` (the rule of the export API's `deviceService`).
    static func principal(_ client: AccessStore.Client) -> String { client.principal.id }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke", abstract: "Revoke a client: its token fails on its next request.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The client id (or a unique prefix of 4 characters or more), from `clients list`.") var id: String

        func run() async throws {
            guard let client = try await store.openService().revokePairedClient(id) else {
                throw ValidationError("no client with id '\(id)'; see `healthbridge clients list`")
            }
            print("Revoked \(client.id) (\(client.name)): its token is refused from its next request.")
        }
    }
}
