extension ActivitySummariesResult {
    /// The activity rings per day as people read them, the same through the CLI and MCP: each ring's figure over
    /// its goal, or the note saying why there are none, and how to continue when paged.
    ///
    /// ```swift
    /// print(result.text(style))
    /// // Activity rings, newest first (Europe/Paris):
    /// // date        move kcal/goal  exercise min/goal  stand h/goal
    /// // ──────────  ──────────────  ─────────────────  ────────────
    /// // 2024-05-07  512/600         34/30              11/12
    /// ```
    package func text(_ style: TextStyle) -> String {
        func figure(_ value: Double?) -> String { TextFormat.number(value) }
        var text = note ?? ("Activity rings, newest first (\(timeZone)):\n" + TextFormat.table(
            ["date", "move kcal/goal", "exercise min/goal", "stand h/goal"],
            summaries.map { day in
                [day.date, "\(figure(day.activeEnergyBurned))/\(figure(day.activeEnergyBurnedGoal))",
                 "\(figure(day.appleExerciseTime))/\(figure(day.appleExerciseTimeGoal))",
                 "\(figure(day.appleStandHours))/\(figure(day.appleStandHoursGoal))"]
            }))
        if let next = nextCursor, let more = style.continuation(.activity, next) { text += "\nMore days: \(more)." }
        return text
    }
}
