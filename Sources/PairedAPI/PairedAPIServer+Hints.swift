import HealthAPI
import HealthModel

extension PairedAPIServer {
    /// A ``HealthError/Hint`` in the paired API's words: the route that does it; what only the owner can do, the
    /// command they run on the server.
    ///
    /// ```swift
    /// PairedAPIServer.hint(.listTypes)   // "GET /api/v1/health/types lists them"
    /// ```
    public static func hint(_ hint: HealthError.Hint) -> String? {
        let base = PairedAPIProtocol.basePath
        return switch hint {
        case .listTypes: "GET \(base)/health/types lists them"
        case .listSources: "GET \(base)/health/sources lists them"
        case .listWorkouts: "GET \(base)/health/workouts lists them"
        case .sleepNights: "GET \(base)/health/sleep lists the nights"
        case .ownerChangesGrants: "the owner runs `healthbridge grants` on the server"
        case .ownerSharesTypes: "the owner shares types with `healthbridge sharing types --enable` or `healthbridge grants`"
        case .ownerAllowsWrite(let principal, let type):
            "the owner runs `healthbridge grants \(principal) --allow-write \(type)` on the server"
        // The 423 body's words since the first version: "sharing is paused on the server (`healthbridge sharing resume`)".
        case .ownerResumesSharing: "`healthbridge sharing resume`"
        }
    }
}
