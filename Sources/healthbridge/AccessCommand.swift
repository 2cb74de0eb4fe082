import ArgumentParser
import Foundation
import HealthAPI
import HealthModel
import HealthService

/// `healthbridge access`: the requests apps and devices filed for access, and the owner's answers.
struct AccessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "List, approve or deny the access requests of apps and devices.",
        discussion: """
            An app using HealthBridgeKit asks for the types it wants to read and write, as HealthKit's permission \
            sheet does; its request waits here until you decide. Approving grants the types (or the subset you \
            name); denying tells the app it may not write them, and it is not asked again. Reads are never \
            reported to the app: a type it may not read looks like a type with no data.
            Examples:
              healthbridge access
              healthbridge access approve req-3f2a9c1d0b4e5f60
              healthbridge access approve req-3f2a9c1d0b4e5f60 --write dietaryEnergyConsumed --read bodyMass
              healthbridge access deny req-3f2a9c1d0b4e5f60
            """,
        subcommands: [List.self, Approve.self, Deny.self, File.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The requests, pending first.")
        @OptionGroup var store: StoreOptions
        @Option(help: "Only pending, approved or denied requests.") var status: AccessRequest.Status?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let result = try await store.openService().accessRequests(status: status)
            if output.json { return try Output.json(result) }
            if result.requests.isEmpty { return print("No access requests.") }
            Output.table(["ID", "PRINCIPAL", "CLIENT", "STATUS", "READ", "WRITE", "ASKED"], result.requests.map { request in
                [request.id, request.principal, request.client ?? "", request.status.rawValue, request.read.joined(separator: ","),
                 request.write.joined(separator: ","), Output.local(request.createdAt)]
            })
            for request in result.requests where request.status == .pending {
                for (type, reason) in request.reasons.sorted(by: { $0.key < $1.key }) {
                    print("  \(request.id) \(type): \(reason)")
                }
            }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "approve", abstract: "Grant a pending request (all of it, or a subset).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The request's id (from `healthbridge access`).") var id: String
        @Option(help: "Grant only these of the read types, comma-separated.") var read: String?
        @Option(help: "Grant only these of the write types, comma-separated.") var write: String?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let decided = try await store.openService().decideAccessRequest(AccessDecision(
                id: id, approve: true, read: read.map { [$0] }, write: write.map { [$0] }))
            if output.json { return try Output.json(decided) }
            print("Approved \(decided.id) for \(decided.principal): read \(Self.list(decided.grantedRead)), write \(Self.list(decided.grantedWrite)).")
        }

        static func list(_ types: [String]) -> String { types.isEmpty ? "nothing" : types.joined(separator: ", ") }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deny", abstract: "Refuse a pending request.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The request's id (from `healthbridge access`).") var id: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let decided = try await store.openService().decideAccessRequest(AccessDecision(id: id, approve: false))
            if output.json { return try Output.json(decided) }
            print("Denied \(decided.id) for \(decided.principal).")
        }
    }

    /// Files a request as an app would (HealthBridgeKit's `requestAuthorization`): for scripts, tests and trying the
    /// console's Access page.
    struct File: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "request",
            abstract: "File an access request on behalf of an app, device or token (as it would ask).",
            discussion: "Example: healthbridge access request app:com.example.diet --read bodyMass --write dietaryEnergyConsumed --reason 'bodyMass=Track your weight trend'")
        @OptionGroup var store: StoreOptions
        @Argument(help: "Who asks: app:ID, device:ID or ingest:NAME.") var principal: String
        @Option(help: "Types to read, comma-separated.") var read: String?
        @Option(help: "Types to write, comma-separated.") var write: String?
        @Option(help: "TYPE=why, repeatable.") var reason: [String] = []
        @OptionGroup var output: OutputOptions

        func run() async throws {
            var reasons: [String: String] = [:]
            for item in reason {
                let parts = item.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { throw ValidationError("--reason takes TYPE=why") }
                reasons[String(parts[0])] = String(parts[1])
            }
            let asker = try await store.openService().acting(as: try Principal(parsing: principal))
            let filed = try await asker.requestAccess(AccessRequestInput(read: read.map { [$0] } ?? [],
                                                                         write: write.map { [$0] } ?? [], reasons: reasons))
            if output.json { return try Output.json(filed) }
            if let request = filed.request {
                print("Filed \(request.id) for \(request.principal): waiting for the owner (`healthbridge access`, or the console's Access page).")
            } else {
                print("Nothing to ask: the owner already decided every type named.")
            }
        }
    }
}

extension AccessRequest.Status: ExpressibleByArgument {}
