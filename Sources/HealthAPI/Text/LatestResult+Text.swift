extension LatestResult {
    /// The most recent value as people read it, the same through the CLI and MCP.
    ///
    /// ```swift
    /// result.text
    /// // "Latest bodyMass: 72.4 kg at 2024-05-07 07:12 (Europe/Paris), from Withings, 5.2 h ago."
    /// ```
    package var text: String {
        guard found else { return "No \(type) samples in the store." }
        let shown = value.map { TextFormat.number($0, decimals: nil) + (unit.map { " " + $0 } ?? "") } ?? category ?? "no value"
        let age = ageHours ?? 0
        let ago = age < 48 ? "\(TextFormat.number(age, decimals: 1)) h ago" : "\(TextFormat.number(age / 24, decimals: 1)) days ago"
        var text = "Latest \(type): \(shown) at \(TextFormat.local(start)) (\(timeZone)), from \(source ?? "?"), \(ago)."
        if let note { text += "\nNote: \(note)." }
        return text
    }
}
