extension EnergyResult {
    /// Energy in and out per day as people read it, the same through the CLI and MCP; a figure whose parts were not
    /// all recorded is `—`, never 0.
    ///
    /// ```swift
    /// print(result.text)
    /// // Energy in and out per day, kcal (Europe/Paris); burned = active + resting:
    /// // date        eaten  active  resting  burned  balance
    /// // ──────────  ─────  ──────  ───────  ──────  ───────
    /// // 2024-05-07  2,140     512    1,650   2,162      -22
    /// ```
    package var text: String {
        "Energy in and out per day, kcal (\(timeZone)); burned = active + resting:\n" + TextFormat.table(
            ["date", "eaten", "active", "resting", "burned", "balance"],
            days.map { day in
                [day.date, TextFormat.number(day.eatenKcal), TextFormat.number(day.activeKcal), TextFormat.number(day.basalKcal),
                 TextFormat.number(day.burnedKcal), TextFormat.number(day.balanceKcal)]
            })
    }
}
