extension SamplesResult {
    /// A page of samples as people read it, the same through the CLI and MCP: what and which span, one row per
    /// sample (the end as a clock time when it falls on the start's day), and how to continue when paged.
    ///
    /// ```swift
    /// print(result.text(style))
    /// // heartRate: 2 samples, newest first, 2024-05-01 00:00 → 2024-05-02 00:00 (Europe/Paris):
    /// // start             end    value       source
    /// // ────────────────  ─────  ──────────  ───────────
    /// // 2024-05-01 13:57  13:57  72 count/min  Apple Watch
    /// ```
    package func text(_ style: TextStyle) -> String {
        let span = "\(TextFormat.local(start)) → \(TextFormat.local(end)) (\(timeZone))"
        guard !samples.isEmpty else { return "No \(type) samples between \(span)." }
        var text = "\(type): \(count) samples, \(order == "asc" ? "oldest" : "newest") first, \(span):\n"
        text += TextFormat.table(["start", "end", "value", "source"], samples.map { sample in
            let sameDay = sample.start.prefix(10) == sample.end.prefix(10)
            let value = sample.value.map { TextFormat.number($0, decimals: nil) + (sample.unit.map { " " + $0 } ?? "") }
            return [TextFormat.local(sample.start), sameDay ? TextFormat.localClock(sample.end) : TextFormat.local(sample.end),
                    value ?? sample.category ?? "", sample.source]
        })
        if let next = nextCursor, let more = style.continuation(.samples, next) { text += "\nMore samples match: \(more)." }
        return text
    }
}
