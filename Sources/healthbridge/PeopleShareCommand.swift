import ArgumentParser
import Foundation
import HealthAPI
import HealthService

/// `healthbridge people share CAREGIVER --read TYPES [--person ID]`.
struct PeopleShareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Let another person of the household read some of your types (a caregiver, a partner, a coach).",
        discussion: """
            Sets exactly what --person (the owner by default) shares with CAREGIVER: the types given, for reading \
            only (a person of the household is never granted writing). Types not shared look like types with no data \
            to them. --stop shares nothing again. They see it in their console's People page; every view is in your \
            audit log.
            Examples:
              healthbridge people share owner --read stepCount,sleepAnalysis --person alex-martin
              healthbridge people share owner --stop --person alex-martin
            """)
    @OptionGroup var store: StoreOptions
    @Argument(help: "The person who may read (healthbridge people list).") var caregiver: String
    @Option(help: "The types they may read, comma-separated (* for all).") var read: String?
    @Flag(help: "Share nothing with them any more.") var stop = false
    @Flag(help: "Print JSON.") var json = false

    func validate() throws {
        guard (read != nil) != stop else {
            throw ValidationError("give the types to share with --read TYPES, or --stop to share nothing")
        }
    }

    func run() async throws {
        let household = try store.householdServices()
        let shared = try await household.share(store.personID ?? Household.ownerID, with: caregiver,
                                               read: stop ? [] : [read ?? ""])
        if json { return try Output.json(shared) }
        if shared.grant.isEmpty {
            print("\(shared.personName) shares nothing with \(shared.caregiverName) ('\(shared.caregiver)').")
        } else {
            print("\(shared.personName) shares with \(shared.caregiverName) ('\(shared.caregiver)'), to read: \(shared.read).")
        }
    }
}
