import ArgumentParser
import Foundation
import HealthConsole
import HealthService

/// `healthbridge console`: a fresh one-time login link for the console of the `serve` running on this data directory.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Print a fresh one-time login link to the web console of the running `healthbridge serve`.",
        discussion: """
            The link signs this browser in as the owner: it works once, within 10 minutes, and only on this machine \
            (the console listens on a loopback address of this install's own, http://127.x.y.z:PORT/, so that its \
            session cookie is sent to no other local web server). Open it in a browser; the session lasts 12 hours \
            or until serve stops.
            """)

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let home = try store.resolveHome().directory
        guard let running = ConsoleRuntime.load(home: home) else {
            throw ValidationError("no `healthbridge serve` with a console is running for this data directory; start it (it prints a login link)")
        }
        let key = try await store.openService().issueConsoleKey()
        print("\(running.origin)/login?key=\(key)")
    }
}
