import ArgumentParser
import Foundation
import HealthAPI
import HealthService

/// `healthbridge people shared [--person ID]`.
struct PeopleSharedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared",
        abstract: "What --person (the owner by default) shares with the others of the household, and what they share with them.")
    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON.") var json = false

    struct Report: Encodable {
        var sharedBy: [SharedData]
        var sharedWith: [SharedData]
    }

    func run() async throws {
        let household = try store.householdServices()
        let person = store.personID ?? Household.ownerID
        let report = Report(sharedBy: try await household.sharedBy(person), sharedWith: try await household.sharedWith(person))
        if json { return try Output.json(report) }
        let rows = report.sharedBy.map { ["\($0.personName) → \($0.caregiverName) ('\($0.caregiver)')", $0.read] }
            + report.sharedWith.map { ["\($0.personName) ('\($0.person)') → \($0.caregiverName)", $0.read] }
        if rows.isEmpty {
            print("Nothing is shared between \(person) and the others of the household.")
            return
        }
        Output.table(["who shares with whom", "to read"], rows)
    }
}
