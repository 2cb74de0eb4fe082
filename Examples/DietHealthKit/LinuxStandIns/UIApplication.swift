import Foundation

// Linux stand-in for UIKit's `UIApplication`, for the one name the seed uses: the notification an app gets when it
// comes back to the foreground (`diet-healthkit launch` posts it once at start, as iOS does on a resume).

/// UIKit's application object, reduced to its foreground notification.
///
/// ```swift
/// NotificationCenter.default.post(name: UIApplication.willEnterForegroundNotification, object: nil)
/// ```
enum UIApplication {
    static let willEnterForegroundNotification = Notification.Name("UIApplicationWillEnterForegroundNotification")
}
