extension WriteResult {
    /// A write's outcome as people read it, the same through the CLI and MCP: the counts, the anchor, and each
    /// object written with its type and uuid.
    ///
    /// ```swift
    /// print(result.text(title: "Meal lunch-1"))
    /// // Meal lunch-1: 2 written, 0 replaced, 0 already stored (anchor 1234):
    /// //   dietaryEnergyConsumed  6F1C…
    /// //   food                   A3B0…
    /// ```
    package func text(title: String? = nil) -> String {
        var text = "\(title.map { $0 + ": " } ?? "")\(inserted) written, \(replaced) replaced, \(unchanged) already stored (anchor \(anchor))"
        if !objects.isEmpty {
            let width = objects.map(\.type.count).max() ?? 0
            text += ":\n" + objects.map { object in
                "  " + object.type + String(repeating: " ", count: width - object.type.count) + "  " + object.uuid
            }.joined(separator: "\n")
        }
        return text
    }
}

extension DeleteResult {
    /// A deletion's outcome as people read it, the same through the CLI and MCP.
    ///
    /// ```swift
    /// result.text   // "3 deleted (anchor 1240)"
    /// ```
    package var text: String { "\(deleted) deleted (anchor \(anchor))" }
}
