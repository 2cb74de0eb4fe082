import Foundation

extension JSONEncoder {
    /// The one encoder of every HealthBridge wire format (MCP results, the HTTPS API, the OpenClaw node, the CLI's
    /// `--json`): sorted keys, no escaped slashes; optionals that are nil are left out.
    ///
    /// ```swift
    /// let data = try JSONEncoder.wire.encode(result)
    /// ```
    public static var wire: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
