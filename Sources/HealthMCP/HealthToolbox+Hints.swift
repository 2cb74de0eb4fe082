import HealthModel

extension HealthToolbox {
    /// A ``HealthError/Hint`` in MCP's words: the tool that does it; what only the owner can do, the command they
    /// run on the server.
    ///
    /// ```swift
    /// HealthError(.invalidType, "unknown type 'stepz'", hint: .listTypes).rendered(HealthToolbox.hint).message
    /// // "unknown type 'stepz' (list_types lists them)"
    /// ```
    public static func hint(_ hint: HealthError.Hint) -> String? {
        switch hint {
        case .listTypes: "list_types lists them"
        case .listSources: "list_sources lists them"
        case .listWorkouts: "workouts have their own tools: list_workouts, get_workout"
        case .sleepNights: "sleep_nights lists the nights"
        case .ownerChangesGrants: "the owner runs `healthbridge grants` on the server"
        case .ownerSharesTypes: "the owner shares types with `healthbridge sharing types --enable` or `healthbridge grants`"
        case .ownerAllowsWrite(let principal, let type):
            "the owner runs `healthbridge grants \(principal) --allow-write \(type)` on the server"
        case .ownerResumesSharing: "the owner runs `healthbridge sharing resume` on the server"
        }
    }
}
