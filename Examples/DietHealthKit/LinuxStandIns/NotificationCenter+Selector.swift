import Foundation

// Linux has no Objective-C runtime, so `#selector(...)` and `@objc` cannot compile. This overload keeps the seed's
// call shape `addObserver(self, selector: …, name: …, object: …)` with a closure in place of the selector; like
// target-action observers on Apple platforms (since iOS 9), it holds the observer weakly: once the observer is gone,
// a notification reaches nothing.

extension NotificationCenter {
    /// Adds `observer` for `name`, calling `selector` on it for each notification (on the posting thread).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(self, selector: { $0.handleWeightUpdate() },
    ///                                        name: .healthKitWeightUpdated, object: nil)
    /// ```
    func addObserver<Observer: AnyObject>(_ observer: Observer, selector: @escaping (Observer) -> Void,
                                          name: Notification.Name?, object: Any?) {
        _ = addObserver(forName: name, object: object, queue: nil) { [weak observer] _ in
            if let observer {
                selector(observer)
            }
        }
    }
}
