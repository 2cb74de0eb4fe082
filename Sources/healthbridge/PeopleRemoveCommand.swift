import ArgumentParser
import Foundation
import HealthModel
import HealthService

/// `healthbridge people remove ID --yes`.
struct PeopleRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a person and everything of theirs (store, paired devices, grants, audit log).")
    @OptionGroup var store: StoreOptions
    @Argument(help: "The person's id (healthbridge people list).") var id: String
    @Flag(help: "Confirm: the person's data directory is deleted.") var yes = false
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let household = Household(home: try store.resolveHouseholdHome())
        guard yes else {
            _ = try household.home(of: id)  // an unknown person is reported as such, before the confirmation
            throw HealthError(.invalidArgument,
                              "removing '\(id)' deletes their data, devices, grants and audit log; run again with --yes",
                              argument: "yes")
        }
        let removed = try household.remove(id)
        if json {
            try Output.json(["removed": removed.id])
            return
        }
        print("Removed \(removed.name) ('\(removed.id)') and their data directory.")
    }
}
