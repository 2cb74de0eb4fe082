extension WorkoutsResult {
    /// A page of workouts as people read it, the same through the CLI and MCP: one row per workout with its uuid,
    /// how to see one in detail, and how to continue when paged.
    ///
    /// ```swift
    /// print(result.text(style))
    /// // 1 workouts, 2024-04-07 00:00 → 2024-05-07 13:57 (Europe/Paris):
    /// // start             activity  min    km  kcal  route  source       uuid
    /// // ────────────────  ────────  ───  ────  ────  ─────  ───────────  ────────────────────────────────────
    /// // 2024-05-06 18:02  running    42  8.12   512    840  Apple Watch  6F1C…
    /// ```
    package func text(_ style: TextStyle) -> String {
        var text = workouts.isEmpty
            ? "No workouts between \(TextFormat.local(start)) → \(TextFormat.local(end)) (\(timeZone))."
            : "\(count) workouts, \(TextFormat.local(start)) → \(TextFormat.local(end)) (\(timeZone)):\n" + WorkoutRecord.table(workouts)
        if let next = nextCursor, let more = style.continuation(.workouts, next) { text += "\nMore workouts match: \(more)." }
        if !workouts.isEmpty, let details = style.workoutDetails { text += "\n\(details)." }
        return text
    }
}

extension WorkoutRecord {
    /// Workouts as a table, one row each: start, activity, minutes, km, kcal, route points, source, uuid.
    package static func table(_ workouts: [WorkoutRecord]) -> String {
        TextFormat.table(["start", "activity", "min", "km", "kcal", "route", "source", "uuid"], workouts.map { workout in
            [TextFormat.local(workout.start), workout.activityType, TextFormat.number(workout.durationMinutes),
             TextFormat.number(workout.distanceKm, decimals: 2), TextFormat.number(workout.energyKcal),
             TextFormat.number(Double(workout.routePointCount)), workout.source, workout.uuid]
        })
    }
}

extension WorkoutRecord {
    /// One workout on one line, for a list inside other text (today's workouts).
    ///
    /// ```swift
    /// workout.line   // "2024-05-06 18:02  running  42 min  8.12 km  512 kcal  Apple Watch"
    /// ```
    package var line: String {
        var parts = ["\(TextFormat.local(start))  \(activityType)", "\(TextFormat.number(durationMinutes)) min"]
        if let distanceKm { parts.append("\(TextFormat.number(distanceKm, decimals: 2)) km") }
        if let energyKcal { parts.append("\(TextFormat.number(energyKcal)) kcal") }
        parts.append(source)
        return parts.joined(separator: "  ")
    }
}
