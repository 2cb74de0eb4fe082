extension SourcesResult {
    /// The sources as people read them, the same through the CLI and MCP: with a type, in the priority order its
    /// statistics merge by; without, by sample count.
    ///
    /// ```swift
    /// print(result.text)
    /// // Sources of stepCount, highest priority first (default order); where they overlap, statistics count only the highest:
    /// // rank  source       kind   device       samples
    /// // ────  ───────────  ─────  ───────────  ───────
    /// //    1  Apple Watch  watch  Watch6,1      41,210
    /// ```
    package var text: String {
        let heading: String
        if let type {
            guard !sources.isEmpty else { return "No source has \(type) samples." }
            heading = "Sources of \(type), highest priority first (\(userOrdered == true ? "set by the user" : "default order")); where they overlap, statistics count only the highest:"
        } else {
            guard !sources.isEmpty else { return "No sources: the store is empty." }
            heading = "Sources, by sample count:"
        }
        return heading + "\n" + TextFormat.table(["rank", "source", "kind", "device", "samples"], sources.map { source in
            [source.rank.map(String.init) ?? "", source.name, source.category, source.device ?? "",
             TextFormat.number(Double(source.count))]
        })
    }
}
