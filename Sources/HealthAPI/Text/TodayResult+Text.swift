extension TodayResult {
    /// Today at a glance as people read it, the same through the CLI and MCP: one labelled line per figure.
    ///
    /// ```swift
    /// print(today.text)
    /// // Today 2024-05-07 so far (Europe/Paris, until 13:57):
    /// // Steps:              8,412 (merged by source priority: Apple Watch > iPhone)
    /// // Active energy:      312 kcal
    /// // …
    /// ```
    package var text: String {
        var lines = ["Today \(date) so far (\(timeZone), until \(TextFormat.localClock(now))):"]
        lines.append("Steps:              \(steps.map { TextFormat.number($0) } ?? "none yet") (merged by source priority: \(stepsSourcePriority.joined(separator: " > ")))")
        lines.append("Active energy:      \(activeEnergyKcal.map { TextFormat.number($0) + " kcal" } ?? "—")")
        lines.append("Resting heart rate: \(restingHeartRateBpm.map { TextFormat.number($0, decimals: 1) + " bpm" } ?? "— (not yet recorded today)")")
        if let night = sleep {
            lines.append("Last night:         asleep \(TextFormat.minutes(night.asleepMinutes)) (bed \(TextFormat.localClock(night.bedtime)) → \(TextFormat.localClock(night.wakeTime))), deep \(TextFormat.minutes(night.deepMinutes)), REM \(TextFormat.minutes(night.remMinutes)), core \(TextFormat.minutes(night.coreMinutes)), awake \(TextFormat.minutes(night.awakeMinutes))")
        } else {
            lines.append("Last night:         no sleep recorded")
        }
        lines.append(workouts.isEmpty
            ? "Workouts:           none yet"
            : "Workouts:           \(workoutCount), \(TextFormat.number(workoutMinutes)) min: " + workouts.map(\.line).joined(separator: "; "))
        return lines.joined(separator: "\n")
    }
}
