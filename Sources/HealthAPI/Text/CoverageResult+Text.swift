extension CoverageResult {
    /// Coverage as people read it, the same through the CLI and MCP: how many buckets have data, each source's
    /// samples and span, and the gaps (nothing recorded: missing, not 0). The per-bucket counts are in the JSON.
    ///
    /// ```swift
    /// print(result.text)
    /// // heartRate coverage per day, 2024-04-01 00:00 → 2024-05-01 00:00 (Europe/Paris): 29 with data, 1 without.
    /// // source       samples  days  first             last
    /// // …
    /// // Gaps (nothing recorded — missing, not 0):
    /// //   2024-04-12 → 2024-04-13 (1 day)
    /// ```
    package var text: String {
        let daily = interval == "day"
        var text = "\(type) coverage per \(interval), \(TextFormat.local(start)) → \(TextFormat.local(end)) (\(timeZone)): \(bucketsWithData) with data, \(emptyBuckets) without.\n"
        if sources.isEmpty {
            return text + "No \(type) data in this range."
        }
        text += TextFormat.table(["source", "samples", daily ? "days" : "hours", "first", "last"], sources.map {
            [$0.source, TextFormat.number(Double($0.count)), TextFormat.number(Double($0.bucketsWithData)), TextFormat.local($0.first),
             TextFormat.local($0.last)]
        })
        if gaps.isEmpty {
            text += "\nNo gaps: every \(interval) has data."
        } else {
            text += "\nGaps (nothing recorded — missing, not 0):\n" + gaps.map { gap in
                daily ? "  \(TextFormat.localDay(gap.start)) → \(TextFormat.localDay(gap.end)) (\(gap.buckets) day\(gap.buckets == 1 ? "" : "s"))"
                    : "  \(TextFormat.local(gap.start)) → \(TextFormat.local(gap.end)) (\(gap.buckets) h)"
            }.joined(separator: "\n")
        }
        return text
    }
}
