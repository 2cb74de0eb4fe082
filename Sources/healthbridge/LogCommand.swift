import ArgumentParser
import Foundation
import HealthAPI
import HealthModel
import HealthService

struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Write to the store: a meal, a weight, water, a workout, any writable measurement.",
        discussion: """
            Written as the owner (source "HealthBridge"). A --log-id makes a write idempotent: writing it again changes \
            nothing, and `healthbridge delete --log-id` removes every object of the entry. With --sync-id, a greater \
            --sync-version replaces the stored object (HealthKit's sync identifiers). Any writable type: \
            `healthbridge log <type> <value> [--unit U] [--metadata name=value]` (`healthbridge log quantity --help` \
            lists the types and their units).
            """,
        subcommands: [Food.self, Weight.self, Water.self, Workout.self, Quantity.self], defaultSubcommand: Quantity.self)

    /// Options every write takes.
    struct WriteOptions: ParsableArguments {
        @Option(help: "When it happened: an ISO date or instant, now, today… (default: now).") var at: String?
        @Option(help: "Your id for the entry: deletes find it; writing it again changes nothing.") var logId: String?
        @Option(help: "A sync identifier: a greater --sync-version replaces the stored object.") var syncId: String?
        @Option(help: "The version of this write (default 1).") var syncVersion: Int?
    }

    static func print(_ result: WriteResult, json: Bool) throws {
        if json { return try Output.json(result) }
        Swift.print(result.text())
    }

    struct Food: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "food", 
            abstract: "A meal: one sample per nutrient and a food correlation linking them.",
            discussion: "Example: healthbridge log food --log-id meal-42 --name Porridge --calories 320 --protein 11 --carbs 54 --fat 6")
        @OptionGroup var store: StoreOptions
        @Option(help: "Your id for the meal (required).") var logId: String
        @Option(help: "When it was eaten (default: now).") var at: String?
        @Option(help: "What it was.") var name: String
        @Option(help: "breakfast, lunch, dinner, snack…") var meal: String?
        @Option(help: "kcal.") var calories: Double
        @Option(help: "Grams.") var protein: Double
        @Option(help: "Grams.") var carbs: Double
        @Option(help: "Grams.") var fat: Double
        @Option(help: "Grams.") var fiber: Double?
        @Option(help: "Grams.") var sugar: Double?
        @Option(help: "Milligrams.") var sodium: Double?
        @Option(help: "Milligrams.") var cholesterol: Double?
        @Option(help: "Grams.") var saturatedFat: Double?
        @Option(help: "A greater version replaces the logged meal (default 1).") var syncVersion: Int?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let result = try await store.openService().logFood(FoodLog(
                logId: logId, loggedAt: at, name: name, meal: meal, calories: calories, protein: protein, carbs: carbs,
                fat: fat, fiber: fiber, sugar: sugar, sodium: sodium, cholesterol: cholesterol, saturatedFat: saturatedFat,
                syncVersion: syncVersion))
            try LogCommand.print(result, json: output.json)
        }
    }

    struct Quantity: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "quantity", 
            abstract: "A measurement of any writable type, in one of its units.",
            discussion: "Types and units: " + SampleTypeRegistry.writableTypes.map { type in
                "\(type.identifier) (\(type.entryUnits.map(\.name).joined(separator: ", "))\(type.writeMetadata.isEmpty ? "" : "; --metadata " + type.writeMetadata.map { "\($0.name)=\($0.values.map(\.name).joined(separator: "|"))" }.joined(separator: " ")))"
            }.joined(separator: ", ") + ". Example: healthbridge log heartRate 62 --unit bpm --at 2024-05-01T07:30")
        @OptionGroup var store: StoreOptions
        @Argument(help: "A writable type (bodyMass, dietaryWater, heartRate…) or a shortcut (water, weight…).") var type: String
        @Argument(help: "The measurement.") var value: Double
        @Option(help: "One of the type's units (default the first).") var unit: String?
        @Option(help: "Metadata the type allows, name=value (repeatable).") var metadata: [String] = []
        @OptionGroup var write: WriteOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            var entries: [String: String] = [:]
            for item in metadata {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw HealthError(.invalidArgument, "--metadata takes name=value, got '\(item.prefix(64))'")
                }
                entries[parts[0]] = parts[1]
            }
            let result = try await store.openService().log(QuantityLog(
                type: type, value: value, unit: unit, at: write.at, metadata: entries.isEmpty ? nil : entries,
                logId: write.logId, syncId: write.syncId, syncVersion: write.syncVersion))
            try LogCommand.print(result, json: output.json)
        }
    }

    struct Weight: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "weight", abstract: "A weight (bodyMass).",
                                                        discussion: "Example: healthbridge log weight 72.4 --at 2024-05-01T07:30")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The weight.") var value: Double
        @Option(help: "kg (default) or lb.") var unit = "kg"
        @OptionGroup var write: WriteOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let result = try await store.openService().logWeight(value, unit: unit, at: write.at, logId: write.logId,
                                                                 syncId: write.syncId, syncVersion: write.syncVersion)
            try LogCommand.print(result, json: output.json)
        }
    }

    struct Water: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "water", abstract: "Water drunk (dietaryWater).",
                                                        discussion: "Example: healthbridge log water 250")
        @OptionGroup var store: StoreOptions
        @Argument(help: "How much.") var value: Double
        @Option(help: "mL (default), L or fl_oz_us.") var unit = "mL"
        @OptionGroup var write: WriteOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let result = try await store.openService().logWater(value, unit: unit, at: write.at, logId: write.logId,
                                                                syncId: write.syncId, syncVersion: write.syncVersion)
            try LogCommand.print(result, json: output.json)
        }
    }

    struct Workout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "workout", 
            abstract: "A workout.",
            discussion: "Example: healthbridge log workout --activity run --start 2024-05-01T07:00 --end 2024-05-01T07:45 --energy 480 --distance 8km")
        @OptionGroup var store: StoreOptions
        @Option(help: "A HealthKit activity (running, cycling, yoga…) or run, walk, cycle, swim, hike, strength.") var activity: String
        @Option(help: "Start.") var start: String
        @Option(help: "End.") var end: String
        @Option(help: "Active energy, kcal.") var energy: Double?
        @Option(help: "Distance with its unit: 5km, 3.1mi, 800m.") var distance: String?
        @Option(help: "Your id for the workout.") var logId: String?
        @Option(help: "A greater version replaces the logged workout (default 1).") var syncVersion: Int?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let result = try await store.openService().logWorkout(WorkoutLog(
                activity: activity, start: start, end: end, energy: energy, distance: distance, logId: logId,
                syncVersion: syncVersion))
            try LogCommand.print(result, json: output.json)
        }
    }
}
