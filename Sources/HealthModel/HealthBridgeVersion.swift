/// The version of HealthBridge, defined once: the CLI's `--version`, the MCP server's `serverInfo`, the export API's
/// `status` and the OpenClaw node's `connect` all report it.
public enum HealthBridgeVersion {
    public static let current = "0.2.0"
}
