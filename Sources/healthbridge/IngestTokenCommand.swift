import ArgumentParser
import PairedAPI
import Foundation
import HealthAutoExport
import HealthModel
import HealthService

struct IngestTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest-token",
        abstract: "Tokens of the Health Auto Export receiver (POST /api/v1/ingest/health-auto-export).",
        discussion: """
            Each token is the principal ingest:NAME. Creating one grants it write access to every type a Health Auto \
            Export payload can hold (quantities, sleep, blood pressure, workouts) and no read access; narrow it with \
            `healthbridge grants ingest:NAME --deny TYPE` or `--reset --allow-write ...`. In the app, set the \
            automation's header `Authorization: Bearer <token>`.
            """,
        subcommands: [Create.self, List.self, Revoke.self], defaultSubcommand: List.self)

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create",
                                                        abstract: "Create a token (shown once) and grant it its writes.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "A name for the phone or automation: letters, digits, '.', '_', '-'.") var name: String
        @Flag(help: "Print {\"name\", \"token\"} as JSON.") var json = false

        func run() async throws {
            let created = try await store.openService()
                .createIngestToken(name: name, allowWrite: HAEMetricCatalog.writableTypes)
            let (token, principal) = (created.token, created.principal)
            if json {
                try Output.json(["name": name, "token": token])
                return
            }
            print("""
                Ingest token for \(principal.id) (shown once, only its hash is kept):

                  \(token)

                In Health Auto Export: Automations → REST API, URL https://<this machine>:8443\(PairedAPIServer.ingestPath)
                (or the plain-HTTP listener of `serve --ingest-port`), format JSON, header
                Authorization: Bearer <token>. It may write every type HAE sends; narrow with
                `healthbridge grants \(principal.id) --deny TYPE`.
                On Android, in HC Webhook (Health Connect): webhook URL
                https://<this machine>:8443\(PairedAPIServer.healthConnectIngestPath), header Authorization: Bearer <token>.
                """)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Ingest tokens, revoked ones too.")
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let tokens = try await store.openService().ingestTokens()
            if json {
                try Output.json(tokens.map { token in
                    ["name": AnyEncodable(token.name), "principal": AnyEncodable("ingest:\(token.name)"),
                     "createdAt": AnyEncodable(ISO8601.string(token.createdAt)),
                     "lastUsed": AnyEncodable(token.lastUsedAt.map { ISO8601.string($0) }),
                     "revokedAt": AnyEncodable(token.revokedAt.map { ISO8601.string($0) })]
                })
                return
            }
            if tokens.isEmpty {
                print("No ingest tokens. Create one with `healthbridge ingest-token create NAME`.")
                return
            }
            Output.table(["name", "created", "last used", "state"], tokens.map { token in
                [token.name, Output.date(token.createdAt, .current), Output.date(token.lastUsedAt, .current),
                 token.isRevoked ? "revoked" : "active"]
            })
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke",
                                                        abstract: "Revoke a token: its next push is refused (401).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The token's name.") var name: String

        func run() async throws {
            guard try await store.openService().revokeIngestToken(name: name) != nil else {
                throw HealthError(.notFound, "no ingest token named '\(name)'; see `healthbridge ingest-token list`")
            }
            print("Revoked ingest:\(name): its next push is refused.")
        }
    }
}
