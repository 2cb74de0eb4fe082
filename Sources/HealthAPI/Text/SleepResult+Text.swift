extension SleepResult {
    /// The nights as people read them, the same through the CLI and MCP: one row per night (wake-up day) with bed and
    /// wake times and the minutes in bed, asleep and in each stage, the average, and how to continue when paged.
    ///
    /// ```swift
    /// print(result.text(style))
    /// // Sleep per night (wake-up day, Europe/Paris). Merged by source priority …
    /// // night of    bed    wake   in bed  asleep  core  deep   REM  awake
    /// // ──────────  ─────  ─────  ──────  ──────  ────  ────  ────  ─────
    /// // 2024-05-02  23:12  07:03    7h51    7h20  4h02  1h10  2h08   0h31
    /// // Average asleep: 7h20
    /// ```
    package func text(_ style: TextStyle) -> String {
        let rows = nights.map { night in
            [night.date, TextFormat.localClock(night.bedtime), TextFormat.localClock(night.wakeTime),
             TextFormat.minutes(night.inBedMinutes), TextFormat.minutes(night.asleepMinutes),
             TextFormat.minutes(night.coreMinutes), TextFormat.minutes(night.deepMinutes),
             TextFormat.minutes(night.remMinutes), TextFormat.minutes(night.awakeMinutes)]
        }
        var text = nights.isEmpty
            ? "No sleep recorded for the nights ending \(TextFormat.localDay(start)) to \(TextFormat.localDay(end)) (\(timeZone))."
            : "Sleep per night (wake-up day, \(timeZone)). \(mergeNote)\n" + TextFormat.table(
                ["night of", "bed", "wake", "in bed", "asleep", "core", "deep", "REM", "awake"], rows)
        if let average = averageAsleepMinutes { text += "\nAverage asleep: \(TextFormat.minutes(average))" }
        if let next = nextCursor, let more = style.continuation(.sleep, next) { text += "\nMore nights follow: \(more)." }
        return text
    }
}
