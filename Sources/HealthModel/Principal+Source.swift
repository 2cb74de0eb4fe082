import Foundation

extension Principal {
    /// The source of what this principal writes: `HealthBridge` for the owner, `HealthBridge (mcp:claude)` for
    /// others, with a bundle-style identifier (`org.healthbridge.mcp.claude`) by which its own objects are found —
    /// a principal may delete only those.
    public var source: HealthSource {
        let safe = name.unicodeScalars.map { scalar -> String in
            CharacterSet.alphanumerics.contains(scalar) || scalar == "-" ? String(scalar) : "_"
        }.joined()
        return kind == .owner
            ? HealthSource(name: "HealthBridge", bundleIdentifier: "org.healthbridge.owner")
            : HealthSource(name: "HealthBridge (\(id))", bundleIdentifier: "org.healthbridge.\(kind.rawValue).\(safe)")
    }
}
