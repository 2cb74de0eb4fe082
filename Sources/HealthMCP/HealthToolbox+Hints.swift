import HealthAPI
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

    /// How MCP's text tells the model to continue a paged answer: the tool to call again with the cursor.
    ///
    /// ```swift
    /// HealthToolbox.textStyle.continuation(.summary, "abc")   // "call summarize with cursor=\"abc\""
    /// ```
    static let textStyle = TextStyle(
        workoutDetails: "get_workout with a uuid gives a workout's statistics, events and route"
    ) { operation, cursor in
        switch operation {
        case .summary: "call summarize with cursor=\"\(cursor)\""
        case .samples: "call query_samples with cursor=\"\(cursor)\""
        case .sleep: "call sleep_nights with cursor=\"\(cursor)\""
        case .workouts: "call list_workouts with cursor=\"\(cursor)\""
        case .activity: "call activity_summaries with cursor=\"\(cursor)\""
        case .routePoints: "call get_workout with route_offset=\(cursor)"
        }
    }
}
