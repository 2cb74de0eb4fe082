// Linux stand-in for Combine's `ObservableObject` (Combine and SwiftUI are Apple-only): the seed's
// `HealthKitManager: ObservableObject` compiles unchanged. Nothing observes it here; the protocol only marks a class.

/// A class whose `@Published` properties a UI would observe (Combine's protocol, without a publisher on Linux).
///
/// ```swift
/// final class Model: ObservableObject { @Published var count = 0 }
/// ```
protocol ObservableObject: AnyObject {}
