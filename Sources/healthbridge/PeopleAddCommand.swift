import ArgumentParser
import Foundation
import HealthModel
import HealthService

/// `healthbridge people add NAME`.
struct PeopleAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a person: a data directory of their own, empty until they import or pair.")
    @OptionGroup var store: StoreOptions
    @Argument(help: "The person's name, e.g. \"Alex Martin\".") var name: String
    @Option(help: "The id --person takes (default: made from the name: alex-martin).") var id: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let person = try Household(home: store.resolveHouseholdHome()).add(name: name, id: id)
        if json {
            try Output.json(PeopleListCommand.PersonJSON(id: person.id, name: person.name, created: ISO8601.string(person.created)))
            return
        }
        print("Added \(person.name) as '\(person.id)'. Act for them with --person \(person.id), e.g. healthbridge import export.zip --person \(person.id)")
    }
}
