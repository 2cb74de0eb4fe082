extension SummaryResult {
    /// The summary as people read it, the same through the CLI and MCP: a line saying what it is, the merge note, one
    /// row per bucket (a bucket without samples says `no data`: missing, not 0), the total, which source won, and how
    /// to continue when paged.
    ///
    /// ```swift
    /// print(result.text(style))
    /// // stepCount per day, 2024-05-01 00:00 → 2024-05-03 00:00 (Europe/Paris).
    /// // Merged by source priority (Apple Watch > iPhone), as the Health app does.
    /// // date        total
    /// // ──────────  ─────
    /// // 2024-05-01  8,412
    /// // 2024-05-02  9,020
    /// // Total: 17,432
    /// ```
    package func text(_ style: TextStyle) -> String {
        let decimals = unit == "count" ? 0 : 1
        let daily = !["minute", "hour"].contains { interval.hasSuffix($0) } && interval != "total"
        var header = [interval == "total" ? "range" : daily ? "date" : "start"]
        var columns: [(String, (SummaryBucket) -> String)] = []
        if statistics == ["duration"] {
            let names = Set(buckets.flatMap { $0.durationsMinutes?.keys.map { $0 } ?? [] }).sorted()
            for name in names { columns.append((name + " min", { TextFormat.number($0.durationsMinutes?[name], decimals: 0) })) }
        } else {
            let chosen = Set(statistics)
            if chosen.contains("sum") { columns.append((unit == "count" ? "total" : "total " + unit, { TextFormat.number($0.sum, decimals: decimals) })) }
            if chosen.contains("average") { columns.append(("avg", { TextFormat.number($0.average, decimals: 1) })) }
            if chosen.contains("min") { columns.append(("min", { TextFormat.number($0.min, decimals: 1) })) }
            if chosen.contains("max") { columns.append(("max", { TextFormat.number($0.max, decimals: 1) })) }
            if chosen.contains("most_recent") { columns.append(("latest", { TextFormat.number($0.mostRecent, decimals: 1) })) }
        }
        header += columns.map(\.0)
        let perSource = bySource ?? []
        header += perSource.map { $0.source + " (own)" }
        let rows: [[String]] = buckets.map { bucket in
            let label = interval == "total" ? "\(TextFormat.local(bucket.start)) → \(TextFormat.local(bucket.end))"
                : daily ? TextFormat.localDay(bucket.start) : TextFormat.local(bucket.start)
            var row = [label] + columns.map { bucket.count == 0 ? "no data" : $0.1(bucket) }
            for series in perSource {
                let own = series.buckets.first { $0.start == bucket.start }
                row.append(TextFormat.number(own?.sum ?? own?.average, decimals: decimals))
            }
            return row
        }
        let shownUnit = unit == "min" ? "minutes" : unit == "count" ? nil : unit
        var text = "\(type) per \(interval == "total" ? "whole range" : interval), \(TextFormat.local(start)) → \(TextFormat.local(end)) (\(timeZone))\(shownUnit.map { ", in " + $0 } ?? "").\n"
        text += mergeNote + "\n"
        text += buckets.allSatisfy({ $0.count == 0 }) ? "No \(type) data in this range." : TextFormat.table(header, rows)
        if let total = totalSum, buckets.count > 1 {
            text += "\nTotal: \(TextFormat.number(total, decimals: decimals))\(unit == "count" ? "" : " " + unit)"
        }
        let empty = buckets.filter { $0.count == 0 }.count
        if empty > 0, empty < buckets.count {
            text += "\n\(empty) of \(buckets.count) buckets have no data (missing, not 0)\(totalSum == nil ? "" : "; the total covers the others")."
        }
        if let parts = contributions, !parts.isEmpty {
            text += "\nWhich source won (part of the merged total / own unmerged total):\n" + TextFormat.table(
                ["source", "counted", "own total"],
                parts.map { [$0.source, TextFormat.number($0.contribution, decimals: decimals), TextFormat.number($0.ownTotal, decimals: decimals)] })
        }
        if let next = nextCursor, let more = style.continuation(.summary, next) {
            text += "\nMore buckets follow (this reply stops at \(TextFormat.local(end))): \(more)."
        }
        return text
    }
}
