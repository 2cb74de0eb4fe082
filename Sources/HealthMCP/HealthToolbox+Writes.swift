import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

// log_food, log_quantity, log_weight, log_water, log_workout, delete_entries, get_changes: writes with consent and the change feed.

extension HealthToolbox {
    /// A write whose id is required (log_food's log_id): calling it again changes nothing.
    static let write = ToolDefinition.Effect(readOnly: false, destructive: false, idempotent: true)
    /// A write whose id is optional: idempotent only when the call gives a log id or sync id (the description says so).
    static let writeMaybeTwice = ToolDefinition.Effect(readOnly: false, destructive: false, idempotent: false)

    static let writeArguments: [String: JSON] = [
        "at": Schema.string("When: \(Schema.dateHelp). Default: now."),
        "log_id": Schema.string("Your id for the entry: calling again with it changes nothing; delete_entries with it removes the entry."),
        "sync_id": Schema.string("A HealthKit sync identifier: a greater sync_version replaces the stored object."),
        "sync_version": Schema.integer("The version of this write (default 1).", minimum: 0),
    ]

    static let notAuthorizedHint = " The user must allow it first (the error says the command to run)."

    static let logFood = ToolDefinition(
        name: "log_food", title: "Log a meal",
        description: """
            Logs a meal into the user's health data: one sample per nutrient (dietary energy, protein, carbohydrates, \
            fat, and fiber, sugar, sodium, cholesterol, saturated fat when given) and a food correlation linking them. \
            Give log_id (your id for the meal): calling again with the same log_id changes nothing; a greater \
            sync_version replaces the meal.\(notAuthorizedHint)
            """,
        arguments: [
            "log_id": Schema.string("Your id for the meal."), "at": writeArguments["at"] ?? .null,
            "name": Schema.string("What was eaten."), "meal": Schema.string("breakfast, lunch, dinner or snack."),
            "calories": Schema.number("kcal."), "protein": Schema.number("g."), "carbs": Schema.number("g."),
            "fat": Schema.number("g."), "fiber": Schema.number("g."), "sugar": Schema.number("g."),
            "sodium": Schema.number("mg."), "cholesterol": Schema.number("mg."), "saturated_fat": Schema.number("g."),
            "sync_version": writeArguments["sync_version"] ?? .null,
        ],
        required: ["log_id", "name", "calories", "protein", "carbs", "fat"], effect: write, output: WriteResult.self
    ) { toolbox, arguments in
        let log = FoodLog(
            logId: try arguments.requiredString("log_id", hint: "your id for the meal"), loggedAt: try arguments.string("at"),
            name: try arguments.requiredString("name", hint: "what was eaten"), meal: try arguments.string("meal"),
            calories: try arguments.requiredNumber("calories"), protein: try arguments.requiredNumber("protein"),
            carbs: try arguments.requiredNumber("carbs"), fat: try arguments.requiredNumber("fat"),
            fiber: try arguments.number("fiber"), sugar: try arguments.number("sugar"), sodium: try arguments.number("sodium"),
            cholesterol: try arguments.number("cholesterol"), saturatedFat: try arguments.number("saturated_fat"),
            syncVersion: arguments.has("sync_version") ? try arguments.int("sync_version", default: 1, range: 0...Int(Int32.max)) : nil)
        let result = try await toolbox.service.logFood(log)
        return ToolReply(structured: try structured(result), text: result.text(title: "Meal \(log.logId)"))
    }

    static func simpleLog(name: String, title: String, type: String, unitHelp: String, defaultUnit: String,
                          log: @escaping @Sendable (HealthService, Double, String?, String?, String?, String?, Int?) async throws -> WriteResult)
        -> ToolDefinition {
        ToolDefinition(
            name: name, title: title,
            description: "Logs \(title.lowercased()) (\(type)) into the user's health data. Give log_id or sync_id so that a retry changes nothing.\(notAuthorizedHint)",
            arguments: writeArguments.merging(["value": Schema.number("How much."), "unit": Schema.string(unitHelp)]) { a, _ in a },
            required: ["value"], effect: writeMaybeTwice, output: WriteResult.self
        ) { toolbox, arguments in
            let result = try await log(toolbox.service, try arguments.requiredNumber("value"), try arguments.string("unit") ?? defaultUnit,
                                       try arguments.string("at"), try arguments.string("log_id"), try arguments.string("sync_id"),
                                       arguments.has("sync_version") ? try arguments.int("sync_version", default: 1, range: 0...Int(Int32.max)) : nil)
            return ToolReply(structured: try structured(result), text: result.text(title: title))
        }
    }

    static let logQuantity = ToolDefinition(
        name: "log_quantity", title: "Log a measurement",
        description: """
            Logs one measurement of any writable quantity type into the user's health data: \
            \(SampleTypeRegistry.writableTypes.map { type in "\(type.identifier) (\(type.entryUnits.map(\.name).joined(separator: ", "))\(type.writeMetadata.isEmpty ? "" : "; metadata " + type.writeMetadata.map { "\($0.name): \($0.values.map(\.name).joined(separator: " or "))" }.joined(separator: ", ")))" }.joined(separator: ", ")). \
            unit is one of the type's units, the first by default. Give log_id or sync_id so that a retry changes \
            nothing.\(notAuthorizedHint)
            """,
        arguments: writeArguments.merging([
            "type": Schema.string("A writable type, or a shortcut: \(SampleTypeRegistry.logShortcuts.keys.sorted().joined(separator: ", "))."), "value": Schema.number("The measurement, in unit."),
            "unit": Schema.string("One of the type's units (default the first)."),
            "metadata": Schema.map(Schema.string(), "Metadata the type allows, by name, e.g. {\"name\": \"value\"}."),
        ]) { a, _ in a },
        required: ["type", "value"], effect: writeMaybeTwice, output: WriteResult.self
    ) { toolbox, arguments in
        let log = QuantityLog(
            type: try arguments.requiredString("type", hint: "a writable type"), value: try arguments.requiredNumber("value"),
            unit: try arguments.string("unit"), at: try arguments.string("at"), metadata: try metadata(arguments),
            logId: try arguments.string("log_id"), syncId: try arguments.string("sync_id"),
            syncVersion: arguments.has("sync_version") ? try arguments.int("sync_version", default: 1, range: 0...Int(Int32.max)) : nil)
        let result = try await toolbox.service.log(log)
        return ToolReply(structured: try structured(result), text: result.text(title: log.type ?? "Measurement"))
    }

    /// `metadata`: an object of strings (numbers are taken as their text).
    static func metadata(_ arguments: ToolArguments) throws(HealthError) -> [String: String]? {
        guard let value = arguments.values["metadata"] else { return nil }
        guard case .object(let entries) = value else {
            throw HealthError(.invalidArgument, "metadata must be an object of strings, e.g. {\"name\": \"value\"}")
        }
        var result: [String: String] = [:]
        for (key, entry) in entries {
            switch entry {
            case .string(let text): result[key] = text
            case .int(let number): result[key] = String(number)
            default: throw HealthError(.invalidArgument, "metadata.\(key.prefix(64)) must be a string")
            }
        }
        return result
    }

    static let logWeight = simpleLog(name: "log_weight", title: "A weight", type: "bodyMass",
                                     unitHelp: "kg (default) or lb.", defaultUnit: "kg") { service, value, unit, at, logId, syncId, version in
        try await service.logWeight(value, unit: unit, at: at, logId: logId, syncId: syncId, syncVersion: version)
    }

    static let logWater = simpleLog(name: "log_water", title: "Water", type: "dietaryWater",
                                    unitHelp: "mL (default), L or fl_oz_us.", defaultUnit: "mL") { service, value, unit, at, logId, syncId, version in
        try await service.logWater(value, unit: unit, at: at, logId: logId, syncId: syncId, syncVersion: version)
    }

    static let logWorkout = ToolDefinition(
        name: "log_workout", title: "Log a workout",
        description: """
            Logs a workout: activity (a HealthKit name such as running, cycling, yoga, traditionalStrengthTraining, or \
            run, walk, cycle, swim, hike, strength), start, end, active energy and distance. An unknown activity is an \
            error listing close names.\(notAuthorizedHint)
            """,
        arguments: [
            "activity": Schema.string("The activity."), "start": Schema.string("Start: \(Schema.dateHelp)."),
            "end": Schema.string("End, in the same forms."), "energy": Schema.number("Active energy, kcal."),
            "distance": Schema.string("Distance with its unit: 5km, 3.1mi, 800m."),
            "log_id": writeArguments["log_id"] ?? .null, "sync_version": writeArguments["sync_version"] ?? .null,
        ],
        required: ["activity", "start", "end"], effect: writeMaybeTwice, output: WriteResult.self
    ) { toolbox, arguments in
        let result = try await toolbox.service.logWorkout(WorkoutLog(
            activity: try arguments.requiredString("activity", hint: "e.g. running"),
            start: try arguments.requiredString("start", hint: "when it started"),
            end: try arguments.requiredString("end", hint: "when it ended"), energy: try arguments.number("energy"),
            distance: try arguments.string("distance"), logId: try arguments.string("log_id"),
            syncVersion: arguments.has("sync_version") ? try arguments.int("sync_version", default: 1, range: 0...Int(Int32.max)) : nil))
        return ToolReply(structured: try structured(result), text: result.text(title: "Workout"))
    }

    static let deleteEntries = ToolDefinition(
        name: "delete_entries", title: "Delete entries",
        description: """
            Deletes what this client wrote: every object of an entry by its log_id (a meal: its nutrients and its \
            correlation), one object by uuid, several by uuids (up to 1,000, in one transaction), or the object \
            with a sync_id. Give exactly one. Deleting what is already gone deletes nothing.
            """,
        arguments: ["log_id": Schema.string(), "uuid": Schema.string(), "sync_id": Schema.string(),
                    "uuids": Schema.array(Schema.string(), "Several objects by UUID, deleted in one transaction.")],
        effect: .init(readOnly: false, destructive: true, idempotent: true),
        output: DeleteResult.self
    ) { toolbox, arguments in
        let result = try await toolbox.service.delete(DeleteRequest(
            uuid: try arguments.string("uuid"), uuids: try arguments.strings("uuids"), logId: try arguments.string("log_id"),
            syncId: try arguments.string("sync_id")))
        return ToolReply(structured: try structured(result), text: result.text)
    }

    static let getChanges = ToolDefinition(
        name: "get_changes", title: "Changes since an anchor",
        description: """
            What was added and deleted since an anchor (HealthKit's anchored object query), in order, with the anchor \
            to pass next time. Leave anchor out for everything so far. wait (seconds, up to 60) waits for the next \
            change when there is none yet.
            """,
        arguments: [
            "types": Schema.array(Schema.string(), "Types to follow (default every type)."),
            "anchor": Schema.string("The anchor of the previous answer."),
            "wait": Schema.number("Seconds to wait for a change (0–60)."),
            "limit": Schema.integer("Changes per answer.", minimum: 1, maximum: 5_000, default: 500),
            "time_zone": Schema.timeZone,
        ],
        output: ChangesResult.self
    ) { toolbox, arguments in
        let request = ChangesRequest(
            types: try arguments.strings("types"), anchor: try arguments.string("anchor"),
            wait: try arguments.number("wait"),
            limit: arguments.has("limit") ? try arguments.int("limit", default: 500, range: 1...5_000) : nil,
            timeZone: try arguments.string("time_zone"))
        // The text lists every change beside the structured result: a page too large for a reply is asked again
        // with half as many changes (the anchor then says where to continue).
        return try await toolbox.fitting(limit: request.limit, count: { $0.added.count + $0.deleted.count }, { limit in
            var page = request
            page.limit = limit ?? request.limit
            return try await toolbox.service.changes(page)
        }, text: \.text)
    }
}
