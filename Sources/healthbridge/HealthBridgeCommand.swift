import ArgumentParser

@main
struct HealthBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthbridge",
        abstract: "Your Apple Health data, HealthKit-accurate, for your agents and your own computers.",
        discussion: """
            Data lives in $HEALTHBRIDGE_HOME, else $XDG_DATA_HOME/healthbridge, else ~/.local/share/healthbridge.
            Start with `healthbridge demo` or `healthbridge import export.zip`.
            """,
        version: HealthBridgeVersion.current,
        subcommands: [
            DemoCommand.self, ImportCommand.self, TypesCommand.self, SourcesCommand.self, QueryCommand.self,
            SummaryCommand.self, SleepCommand.self, PriorityCommand.self,
            MCPCommand.self, ServeCommand.self,
            NodeCommand.self,
            // Local-network export: server side, then the client of a paired server.
            PairCodeCommand.self, SharingCommand.self, ClientsCommand.self, AuditCommand.self,
            DiscoverCommand.self, PairCommand.self, StatusCommand.self, RemoteCommand.self, FetchCommand.self,
        ]
    )
}

enum HealthBridgeVersion {
    static let current = "0.1.0"
}
