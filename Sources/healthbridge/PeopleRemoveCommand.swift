import ArgumentParser
import Foundation
import HealthModel
import HealthService
import HealthStorePostgres

/// `healthbridge people remove ID --yes`.
struct PeopleRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a person and everything of theirs (store, paired devices, grants, audit log; on PostgreSQL their schema and role).")
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
        // On PostgreSQL the person's schema and role go first: when the database cannot be reached, the data
        // directory stays, so that running the command again finishes the removal.
        if let location = store.storeLocation, PostgresStoreConfiguration.isPostgresURL(location) {
            _ = try household.home(of: id)  // an unknown person is reported as such, before anything is dropped
            let configuration = try StoreOptions.postgresConfiguration(location, person: id)
            if configuration.person != nil {
                try await PostgresHealthStore.dropSchema(configuration: configuration, logger: CLILog.logger)
            }
        }
        // What the others shared with them goes first, so somebody added later under the same id inherits nothing.
        try await store.householdServices().forget(id)
        let removed = try household.remove(id)
        if json {
            try Output.json(["removed": removed.id])
            return
        }
        print("Removed \(removed.name) ('\(removed.id)') and their data directory.")
    }
}
