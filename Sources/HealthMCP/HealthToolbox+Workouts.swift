import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

// list_workouts, get_workout: workouts with their statistics, events and routes.

extension HealthToolbox {
    static let maxWorkoutLimit = 500
    static let maxRouteLimit = 5_000

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
        output: WorkoutsResult.self
    ) { toolbox, arguments in
        let request = WorkoutsRequest(
            activityTypes: try arguments.strings("activity_type"), start: try arguments.string("start"),
            end: try arguments.string("end"),
            ascending: try arguments.choice("order", ["desc", "asc"], default: "desc") == "asc",
            timeZone: try arguments.string("time_zone"), cursor: try arguments.string("cursor"))
        let limit = arguments.has("limit") ? try arguments.int("limit", default: 50, range: 1...maxWorkoutLimit) : nil
        return try await toolbox.fitting(limit: limit, count: \.count, { limit in
            var page = request
            page.limit = limit
            return try await toolbox.service.workouts(page)
        }, text: { $0.text(textStyle) })
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
        output: WorkoutDetail.self
    ) { toolbox, arguments in
        let request = WorkoutRequest(
            uuid: try arguments.requiredString("uuid", hint: "a workout uuid from list_workouts"),
            routeOffset: try arguments.int("route_offset", default: 0, range: 0...10_000_000),
            routeLimit: try arguments.int("route_limit", default: 100, range: 0...maxRouteLimit),
            timeZone: try arguments.string("time_zone"))
        return try await toolbox.fitting(limit: request.routeLimit, count: \.routePoints.count, { limit in
            var page = request
            page.routeLimit = limit ?? request.routeLimit
            return try await toolbox.service.workout(page)
        }, text: { $0.text(textStyle) })
    }
}
