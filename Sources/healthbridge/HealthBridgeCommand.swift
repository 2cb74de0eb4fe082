import ArgumentParser
import Foundation
import HealthModel

@main
struct HealthBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthbridge",
        abstract: "Your Apple Health data, HealthKit-accurate, for your agents and your own computers.",
        discussion: """
            Data lives in $HEALTHBRIDGE_HOME, else $XDG_DATA_HOME/healthbridge, else ~/.local/share/healthbridge.
            Start with `healthbridge demo` or `healthbridge import export.zip`.
            With --json, results are JSON on stdout and errors {"error":{"code","message"}} on stderr.
            """,
        version: HealthBridgeVersion.current,
        groupedSubcommands: [
            CommandGroup(name: "Your data", subcommands: [
                DemoCommand.self, ImportCommand.self, TypesCommand.self, SourcesCommand.self, QueryCommand.self,
                SummaryCommand.self, CoverageCommand.self, LatestCommand.self, SleepCommand.self, WorkoutsCommand.self,
                ActivityCommand.self, TodayCommand.self, EnergyCommand.self, ChangesCommand.self,
            ]),
            CommandGroup(name: "Writes, priority and consent", subcommands: [
                LogCommand.self, DeleteCommand.self, PriorityCommand.self, GrantsCommand.self,
            ]),
            CommandGroup(name: "People and where the data lives", subcommands: [PeopleCommand.self, StoreCommand.self]),
            CommandGroup(name: "Serving agents and devices", subcommands: [
                ServeCommand.self, MCPCommand.self, ConsoleCommand.self, NodeCommand.self,
            ]),
            CommandGroup(name: "This computer's paired API", subcommands: [
                PairCodeCommand.self, SharingCommand.self, ClientsCommand.self, IngestTokenCommand.self, AuditCommand.self,
            ]),
            CommandGroup(name: "Reading another computer's paired API", subcommands: [
                DiscoverCommand.self, PairCommand.self, AccessCommand.self, StatusCommand.self, RemoteCommand.self,
                FetchCommand.self,
            ]),
        ]
    )

    /// Runs the command; with `--json`, a failure is `{"error": {"code", "message"}}` on stderr, with the exit code
    /// the failure has without it (1 for a refused request, 64 for a usage error).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // The service's hints in the CLI's words: its commands.
            let error = (error as? HealthError).map { $0.rendered(Output.hint) } ?? error
            guard arguments.contains("--json"), let failure = jsonFailure(error) else { exit(withError: error) }
            Output.jsonError(failure.error)
            Foundation.exit(failure.code)
        }
    }

    /// The error and exit code to print for a failure under `--json`; nil for help, version and explicit exit codes.
    static func jsonFailure(_ error: any Error) -> (error: HealthError, code: Int32)? {
        if error is ExitCode { return nil }
        let code = exitCode(for: error)
        guard code != .success else { return nil }
        if let health = error as? HealthError { return (health, code.rawValue) }
        let message = fullMessage(for: error).trimmingCharacters(in: .whitespacesAndNewlines)
        let firstLine = message.split(separator: "\n").first.map(String.init) ?? message
        let cleaned = firstLine.hasPrefix("Error: ") ? String(firstLine.dropFirst(7)) : firstLine
        return (HealthError(code == .validationFailure ? .invalidArgument : .internalError, cleaned), code.rawValue)
    }
}
