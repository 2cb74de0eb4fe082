extension TypesResult {
    /// The types in the store as people read them, the same through the CLI and MCP: one row per type with its
    /// sample count, first and last day, unit and the statistics summaries accept.
    ///
    /// ```swift
    /// print(result.text)
    /// // 12 types in the store (time zone Europe/Paris, now 2024-05-07 13:57):
    /// // type       kind      samples  first       last        unit       statistics
    /// // ─────────  ────────  ───────  ──────────  ──────────  ─────────  ──────────────────────────
    /// // heartRate  quantity   41,210  2023-01-02  2024-05-07  count/min  average/min/max/most_recent
    /// ```
    package var text: String {
        var text = "\(count) types in the store (time zone \(timeZone), now \(TextFormat.local(now))):\n"
        guard !types.isEmpty else {
            return text + "The store is empty: import an Apple Health export (`healthbridge import export.zip`) or run `healthbridge demo`."
        }
        text += TextFormat.table(["type", "kind", "samples", "first", "last", "unit", "statistics"], types.map { type in
            [type.type, type.kind, TextFormat.number(Double(type.count)),
             type.first.map(TextFormat.localDay) ?? "—", type.last.map(TextFormat.localDay) ?? "—",
             type.unit ?? type.recordedUnits.joined(separator: ", "), type.statistics.joined(separator: "/")]
        })
        return text
    }
}
