extension ChangesResult {
    /// Changes as people read them, the same through the CLI and MCP: `+` for each object added (type, start,
    /// value, source, uuid), `-` for each deleted, then the counts and the anchor to pass next time.
    ///
    /// ```swift
    /// print(result.text)
    /// // + bodyMass  2024-05-07 07:12  72.4 kg  Withings  6F1C…
    /// // - bodyMass  A3B0…
    /// // 1 added, 1 deleted; next anchor 1240.
    /// ```
    package var text: String {
        var lines: [String] = added.compactMap { item in
            if let sample = item.sample {
                let value = sample.value.map { TextFormat.number($0, decimals: nil) + (sample.unit.map { " " + $0 } ?? "") } ?? sample.category ?? ""
                return "+ \(item.type)  \(TextFormat.local(sample.start))  \(value)  \(sample.source)  \(sample.uuid)"
            }
            if let workout = item.workout {
                return "+ workout  \(TextFormat.local(workout.start))  \(workout.activityType)  \(workout.source)  \(workout.uuid)"
            }
            return nil
        }
        lines += deleted.map { "- \($0.type)  \($0.uuid)" }
        lines.append("\(added.count) added, \(deleted.count) deleted; next anchor \(anchor)\(hasMore ? " (more: ask again from it)" : "").")
        return lines.joined(separator: "\n")
    }
}
