/// What differs between interfaces when a result is rendered as text: how the reader asks for more. Each adapter
/// builds one in its own words, as it renders ``HealthError/Hint``s; the rendering itself is shared.
///
/// ```swift
/// let mcp = TextStyle { operation, cursor in "call \(operation.rawValue) with cursor=\"\(cursor)\"" }
/// let cli = TextStyle { operation, cursor in "`healthbridge \(operation.rawValue) --cursor \(cursor)`" }
/// summary.text(mcp)   // "… More buckets follow …: call summarize with cursor=\"…\"."
/// ```
package struct TextStyle: Sendable {
    /// The paged use cases whose text ends with a way to continue.
    package enum Operation: String, Sendable, CaseIterable {
        case summary, samples, sleep, workouts, activity
        /// A workout's route points; the "cursor" is the next `route_offset`.
        case routePoints
    }

    /// How to get the next page of `operation` from `cursor`, as an instruction the reader can follow; nil where the
    /// interface has no way to (the text then says nothing).
    package var continuation: @Sendable (_ operation: Operation, _ cursor: String) -> String?

    /// How to see one workout in detail, shown under a list of workouts; nil for nothing.
    package var workoutDetails: String?

    package init(workoutDetails: String? = nil,
                 continuation: @escaping @Sendable (_ operation: Operation, _ cursor: String) -> String?) {
        self.workoutDetails = workoutDetails
        self.continuation = continuation
    }
}
