import ArgumentParser
import Foundation
import HealthModel
import HealthService

/// `healthbridge people list`.
struct PeopleListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the people of this household.")
    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let people = try Household(home: store.resolveHouseholdHome()).people()
        if json {
            try Output.json(people.map { PersonJSON(id: $0.id, name: $0.name, created: ISO8601.string($0.created)) })
            return
        }
        Output.table(["id", "name", "added"], people.map { [$0.id, $0.name, ISO8601.dateString($0.created, timeZone: .current)] })
    }

    struct PersonJSON: Encodable {
        var id: String
        var name: String
        var created: String
    }
}
