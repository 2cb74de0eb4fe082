import Foundation
import HealthEngine
import HealthModel
import HealthService
import HealthStore
import MCP

// list_workouts, get_workout: workouts with their statistics, events and routes.

extension HealthToolbox {
    static let maxWorkoutLimit = 500
    static let maxRouteLimit = 5_000

    static func kilometers(_ measurement: HealthWorkout.Measurement?) -> Double? {
        guard let measurement else { return nil }
        return try? HealthUnit.parse(measurement.unit).convert(measurement.value, to: HealthUnit.parse("km"))
    }

    static func kilocalories(_ measurement: HealthWorkout.Measurement?) -> Double? {
        guard let measurement else { return nil }
        return try? HealthUnit.parse(measurement.unit).convert(measurement.value, to: HealthUnit.parse("kcal"))
    }

    /// A statistic's sum, converted (the workout's own total when it has one, else its per-quantity statistic).
    static func distanceKm(_ workout: HealthWorkout) -> Double? {
        if let total = kilometers(workout.totalDistance) { return total }
        guard let statistic = workout.statistics.first(where: { $0.type.hasPrefix("distance") }), let sum = statistic.sum else { return nil }
        return kilometers(.init(sum, statistic.unit ?? "m"))
    }

    static func energyKcal(_ workout: HealthWorkout) -> Double? {
        if let total = kilocalories(workout.totalEnergyBurned) { return total }
        guard let statistic = workout.statistics.first(where: { $0.type == "activeEnergyBurned" }), let sum = statistic.sum else { return nil }
        return kilocalories(.init(sum, statistic.unit ?? "kcal"))
    }

    static let workoutSummarySchema: [String: JSON] = [
        "uuid": Schema.string("Pass it to get_workout for details."),
        "activity_type": Schema.string("e.g. running, walking, cycling, traditionalStrengthTraining."),
        "start": Schema.isoString,
        "end": Schema.isoString,
        "duration_minutes": Schema.number("Active time (pauses excluded)."),
        "distance_km": Schema.number(),
        "energy_kcal": Schema.number("Active energy."),
        "source": Schema.string(),
        "route_point_count": Schema.integer("GPS points recorded (0: no route)."),
    ]

    static func workoutSummary(_ workout: HealthWorkout, zone: TimeZone) -> JSONObject {
        var item = JSONObject()
        item.set("uuid", workout.uuid.uuidString)
        item.set("activity_type", workout.activityType)
        item.set("start", ISO8601.string(workout.start, timeZone: zone))
        item.set("end", ISO8601.string(workout.end, timeZone: zone))
        item.set("duration_minutes", workout.duration / 60, digits: 1)
        item.set("distance_km", distanceKm(workout), digits: 3)
        item.set("energy_kcal", energyKcal(workout), digits: 1)
        item.set("source", workout.source.name)
        item.set("route_point_count", workout.routes.reduce(0) { $0 + $1.pointCount })
        return item
    }

    static func workoutLine(_ workout: HealthWorkout, zone: TimeZone) -> String {
        var parts = ["\(TextFormat.time(workout.start, zone))  \(workout.activityType)",
                     "\(TextFormat.number(workout.duration / 60)) min"]
        if let km = distanceKm(workout) { parts.append("\(TextFormat.number(km, decimals: 2)) km") }
        if let kcal = energyKcal(workout) { parts.append("\(TextFormat.number(kcal)) kcal") }
        parts.append(workout.source.name)
        return parts.joined(separator: "  ")
    }

    /// Activity type names as the store keeps them, from any accepted spelling.
    static func activityTypes(_ names: [String]?) throws(HealthError) -> [String]? {
        guard let names else { return nil }
        return try names.map { name throws(HealthError) in
            if let type = WorkoutActivityType.named(name) { return type.name }
            let folded = name.lowercased()
            let close = WorkoutActivityType.all.map(\.name).filter {
                $0.lowercased().contains(folded) || folded.contains($0.lowercased())
            }.prefix(5)
            throw HealthError(.invalidArgument,
                              "unknown activity type '\(name)'\(close.isEmpty ? "" : "; did you mean \(close.joined(separator: ", "))?") (HealthKit names such as running, walking, cycling, swimming, hiking, yoga, traditionalStrengthTraining)")
        }
    }

    // MARK: list_workouts

    static let listWorkouts = ToolDefinition(
        name: "list_workouts", title: "List workouts",
        description: """
            Workouts between two dates, newest first by default, optionally of given activity types: each with its \
            uuid, activity type, start, end, duration, distance, active energy, source and route size. Use \
            get_workout with a uuid for statistics (heart rate, …), events and the route. "My last run": \
            activity_type=running, limit=1.
            """,
        arguments: [
            "activity_type": Schema.string("Only these activity types (HealthKit names: running, walking, cycling, swimming, hiking, yoga, …), several separated by commas."),
            "start": Schema.start(defaultText: "30d, the last thirty days"),
            "end": Schema.end,
            "limit": Schema.integer("Workouts per page.", minimum: 1, maximum: maxWorkoutLimit, default: 50),
            "order": Schema.string("desc: newest first (default); asc: oldest first.", oneOf: ["desc", "asc"]),
            "time_zone": Schema.timeZone,
            "cursor": Schema.cursor,
        ],
        output: Schema.object([
            "time_zone": Schema.string(),
            "start": Schema.isoString,
            "end": Schema.isoString,
            "count": Schema.integer("Workouts in this page."),
            "workouts": Schema.array(Schema.object(workoutSummarySchema,
                                                   required: ["uuid", "activity_type", "start", "end", "duration_minutes", "source", "route_point_count"])),
        ].merging(Schema.paging) { a, _ in a }, required: ["time_zone", "start", "end", "count", "workouts", "has_more"])
    ) { toolbox, arguments in
        var service = try toolbox.service(arguments)
        let start: Date, end: Date, ascending: Bool, limit: Int, types: [String]?
        var offset = 0
        if let cursor = try arguments.string("cursor") {
            let state = try PageCursor.decode(cursor, tool: "list_workouts")
            start = try state.cursorDate("start")
            end = try state.cursorDate("end")
            ascending = state.cursorBool("asc")
            limit = try state.cursorInt("limit", in: 1...maxWorkoutLimit)
            offset = try state.cursorInt("offset", in: 0...10_000_000)
            types = state.cursorStrings("types")
            if let zone = state.cursorOptionalString("time_zone") { service.homeTimeZone = try DateExpression.timeZone(zone) }
        } else {
            (start, end) = try toolbox.range(arguments, service, defaultStart: "30d")
            ascending = try arguments.choice("order", ["desc", "asc"], default: "desc") == "asc"
            limit = try arguments.int("limit", default: 50, range: 1...maxWorkoutLimit)
            types = try activityTypes(try arguments.strings("activity_type"))
        }
        let zone = service.homeTimeZone
        let fetched = try await service.store.workouts(WorkoutQuery(activityTypes: types, start: start, end: end,
                                                                    limit: offset + limit + 1, ascending: ascending))
        let page = fetched.dropFirst(offset).prefix(limit)
        var budget = PageBudget(toolbox.itemBudget)
        var items: [JSON] = []
        var lines: [String] = []
        for workout in page {
            let item = workoutSummary(workout, zone: zone).value
            let line = workoutLine(workout, zone: zone)
            guard budget.take(item, text: line) else { break }
            items.append(item)
            lines.append(line)
        }
        let hasMore = fetched.count > offset + items.count
        var structured: [String: JSON] = [
            "time_zone": .string(zone.identifier), "start": .string(ISO8601.string(start, timeZone: zone)),
            "end": .string(ISO8601.string(end, timeZone: zone)), "count": .int(items.count),
            "workouts": .array(items), "has_more": .bool(hasMore),
        ]
        let what = types.map { $0.joined(separator: "/") + " workouts" } ?? "workouts"
        var text = items.isEmpty
            ? "No \(what) between \(TextFormat.span(start, end, zone)) (\(zone.identifier))."
            : "\(items.count) \(what), \(ascending ? "oldest" : "newest") first (\(zone.identifier)):\n" + lines.joined(separator: "\n")
        if hasMore {
            var state: [String: JSON] = [
                "start": .string(ISO8601.string(start)), "end": .string(ISO8601.string(end)), "asc": .bool(ascending),
                "limit": .int(limit), "offset": .int(offset + items.count), "time_zone": .string(zone.identifier),
            ]
            if let types { state["types"] = .array(types.map(JSON.string)) }
            let cursor = PageCursor.encode(tool: "list_workouts", state)
            structured["next_cursor"] = .string(cursor)
            text += "\nMore workouts match: call list_workouts with cursor=\"\(cursor)\"."
        }
        if !items.isEmpty { text += "\n(get_workout with a uuid gives details; uuids are in the structured result: \(page.prefix(items.count).map(\.uuid.uuidString).joined(separator: ", ")))" }
        return ToolReply(structured: structured, text: text)
    }

    // MARK: get_workout

    static let getWorkout = ToolDefinition(
        name: "get_workout", title: "Workout details",
        description: """
            One workout in detail: activity type, dates, duration, distance, energy, its per-quantity statistics \
            (heart rate average/min/max, distance, energy, …), events (pauses, laps, segments), metadata, and a \
            route summary (points, distance along the GPS track, elevation gain, bounds, pace). Route points are \
            paged: route_offset and route_limit (0 for the summary only); next_route_offset says where to continue.
            """,
        arguments: [
            "uuid": Schema.string("The workout's uuid, from list_workouts."),
            "route_offset": Schema.integer("First route point to return.", minimum: 0, default: 0),
            "route_limit": Schema.integer("Route points to return (0: none).", minimum: 0, maximum: maxRouteLimit, default: 100),
            "time_zone": Schema.timeZone,
        ],
        required: ["uuid"],
        output: Schema.object(workoutSummarySchema.merging([
            "time_zone": Schema.string(),
            "metadata": Schema.map(Schema.string()),
            "events": Schema.array(Schema.object([
                "type": Schema.string("pause, resume, lap, marker, motionPaused, motionResumed, segment"),
                "date": Schema.isoString,
                "duration_seconds": Schema.number(),
            ], required: ["type", "date"])),
            "statistics": Schema.array(Schema.object([
                "type": Schema.string(),
                "sum": Schema.number(),
                "average": Schema.number(),
                "min": Schema.number(),
                "max": Schema.number(),
                "unit": Schema.string(),
            ], required: ["type"])),
            "route": Schema.object([
                "point_count": Schema.integer(),
                "start": Schema.isoString,
                "end": Schema.isoString,
                "distance_km": Schema.number("Along the GPS track."),
                "elevation_gain_m": Schema.number(),
                "min_elevation_m": Schema.number(),
                "max_elevation_m": Schema.number(),
                "average_speed_mps": Schema.number(),
                "pace_min_per_km": Schema.number(),
                "bounds": Schema.object([
                    "min_latitude": Schema.number(), "max_latitude": Schema.number(),
                    "min_longitude": Schema.number(), "max_longitude": Schema.number(),
                ], required: ["min_latitude", "max_latitude", "min_longitude", "max_longitude"]),
            ], required: ["point_count"]),
            "route_points": Schema.array(Schema.object([
                "time": Schema.isoString,
                "latitude": Schema.number(),
                "longitude": Schema.number(),
                "elevation_m": Schema.number(),
                "speed_mps": Schema.number(),
            ], required: ["time", "latitude", "longitude"])),
            "route_offset": Schema.integer(),
            "next_route_offset": Schema.integer("Present when more route points follow: pass it as route_offset."),
        ]) { a, _ in a }, required: ["uuid", "activity_type", "start", "end", "duration_minutes", "source", "route_point_count",
                                     "time_zone", "events", "statistics", "route_points", "route_offset"])
    ) { toolbox, arguments in
        let service = try toolbox.service(arguments)
        let zone = service.homeTimeZone
        let text = try arguments.requiredString("uuid", hint: "a workout uuid from list_workouts")
        guard let uuid = UUID(uuidString: text) else {
            throw HealthError(.invalidArgument, "uuid '\(text)' is not a UUID; take one from list_workouts")
        }
        guard let workout = try await service.store.workout(uuid) else {
            throw HealthError(.invalidArgument, "no workout has uuid \(text); list_workouts gives the uuids")
        }
        let offset = try arguments.int("route_offset", default: 0, range: 0...10_000_000)
        let limit = try arguments.int("route_limit", default: 100, range: 0...maxRouteLimit)
        var result = workoutSummary(workout, zone: zone)
        result.set("time_zone", zone.identifier)
        result.set("metadata", JSON.object(workout.metadata.mapValues(JSON.string)))
        let eventNames = ["HKWorkoutEventTypePause": "pause", "HKWorkoutEventTypeResume": "resume",
                          "HKWorkoutEventTypeLap": "lap", "HKWorkoutEventTypeMarker": "marker",
                          "HKWorkoutEventTypeMotionPaused": "motionPaused",
                          "HKWorkoutEventTypeMotionResumed": "motionResumed", "HKWorkoutEventTypeSegment": "segment"]
        result.set("events", JSON.array(workout.events.map { event in
            var item = JSONObject()
            item.set("type", eventNames[event.type] ?? event.type)
            item.set("date", ISO8601.string(event.date, timeZone: zone))
            item.set("duration_seconds", event.duration, digits: 1)
            return item.value
        }))
        var lines = [workoutLine(workout, zone: zone)]
        if let km = distanceKm(workout), km > 0.01, workout.duration > 0 {
            let seconds = Int((workout.duration / km).rounded())
            if seconds < 100 * 3600 { lines[0] += "  (\(seconds / 60):\(String(format: "%02d", seconds % 60)) /km)" }
        }
        var statisticLines: [String] = []
        result.set("statistics", JSON.array(workout.statistics.map { statistic in
            var item = JSONObject()
            let type = SampleTypeRegistry.shortIdentifier(statistic.type)
            item.set("type", type)
            item.set("sum", statistic.sum)
            item.set("average", statistic.average, digits: 1)
            item.set("min", statistic.minimum, digits: 1)
            item.set("max", statistic.maximum, digits: 1)
            let unit = statistic.unit.map(HealthService.wireUnit)
            item.set("unit", unit)
            var parts: [String] = []
            if let sum = statistic.sum { parts.append("total \(TextFormat.number(sum, decimals: 2))") }
            if let average = statistic.average { parts.append("avg \(TextFormat.number(average, decimals: 1))") }
            if let minimum = statistic.minimum { parts.append("min \(TextFormat.number(minimum, decimals: 1))") }
            if let maximum = statistic.maximum { parts.append("max \(TextFormat.number(maximum, decimals: 1))") }
            statisticLines.append("\(type): \(parts.joined(separator: ", ")) \(unit ?? "")")
            return item.value
        }))
        if !statisticLines.isEmpty { lines.append("Statistics: " + statisticLines.joined(separator: "; ")) }
        if !workout.events.isEmpty {
            lines.append("Events: " + workout.events.map { "\(eventNames[$0.type] ?? $0.type) at \(TextFormat.clock($0.date, zone))" }.joined(separator: ", "))
        }
        result.set("route_offset", offset)
        var pointItems: [JSON] = []
        if let route = workout.routes.first {
            // The summary reads every point as columns; only the page's points become values.
            let all = try await service.store.routeColumns(route.uuid, offset: 0, limit: .max)
            result.set("route", routeSummary(RouteSummary(all), route: route, zone: zone).value)
            var budget = PageBudget(toolbox.itemBudget)
            var pointLines: [String] = []
            let end = min(all.count, offset + limit)
            if offset < end {
                for point in (offset..<end).lazy.map({ all[$0] }) {
                    var item = JSONObject()
                    item.set("time", ISO8601.string(point.time, timeZone: zone))
                    item.set("latitude", point.latitude, digits: 7)
                    item.set("longitude", point.longitude, digits: 7)
                    item.set("elevation_m", point.elevation, digits: 1)
                    item.set("speed_mps", point.speed, digits: 2)
                    let line = "\(String(ISO8601.string(point.time, timeZone: zone).dropFirst(11).prefix(8))) \(String(format: "%.6f,%.6f", point.latitude, point.longitude))\(point.elevation.map { String(format: " %.0f m", $0) } ?? "")"
                    guard budget.take(item.value, text: line) else { break }
                    pointItems.append(item.value)
                    pointLines.append(line)
                }
            }
            if let summary = result.fields["route"]?.objectValue {
                var routeText = "Route: \(all.count) points"
                if let km = summary["distance_km"] { routeText += ", \(TextFormat.number(km.doubleValue ?? km.intValue.map(Double.init), decimals: 2)) km along the track" }
                if let gain = summary["elevation_gain_m"] { routeText += ", +\(TextFormat.number(gain.doubleValue ?? gain.intValue.map(Double.init))) m" }
                lines.append(routeText)
            }
            if !pointLines.isEmpty {
                lines.append("Points \(offset)–\(offset + pointLines.count - 1) (time, latitude,longitude, elevation):")
                lines.append(pointLines.joined(separator: "\n"))
            }
            if limit > 0, offset + pointItems.count < all.count {
                result.set("next_route_offset", offset + pointItems.count)
                lines.append("More route points: call get_workout with route_offset=\(offset + pointItems.count).")
            }
        } else {
            lines.append("No route.")
        }
        result.set("route_points", JSON.array(pointItems))
        return ToolReply(structured: result.fields, text: lines.joined(separator: "\n"))
    }

    static func routeSummary(_ route: RouteSummary, route workoutRoute: HealthWorkout.Route, zone: TimeZone) -> JSONObject {
        var summary = JSONObject()
        summary.set("point_count", route.pointCount)
        summary.set("start", ISO8601.string(route.start.map(Date.init(timeIntervalSince1970:)) ?? workoutRoute.start, timeZone: zone))
        summary.set("end", ISO8601.string(route.end.map(Date.init(timeIntervalSince1970:)) ?? workoutRoute.end, timeZone: zone))
        guard let bounds = route.bounds else { return summary }
        summary.set("distance_km", route.distanceMeters / 1000, digits: 3)
        if let gain = route.elevationGainMeters { summary.set("elevation_gain_m", gain, digits: 1) }
        summary.set("min_elevation_m", route.minElevationMeters, digits: 1)
        summary.set("max_elevation_m", route.maxElevationMeters, digits: 1)
        if let speed = route.averageSpeedMetersPerSecond, let pace = route.paceMinutesPerKilometer {
            summary.set("average_speed_mps", speed, digits: 2)
            summary.set("pace_min_per_km", pace, digits: 2)
        }
        var box = JSONObject()
        box.set("min_latitude", bounds.minLatitude, digits: 7)
        box.set("max_latitude", bounds.maxLatitude, digits: 7)
        box.set("min_longitude", bounds.minLongitude, digits: 7)
        box.set("max_longitude", bounds.maxLongitude, digits: 7)
        summary.set("bounds", box.value)
        return summary
    }
}
