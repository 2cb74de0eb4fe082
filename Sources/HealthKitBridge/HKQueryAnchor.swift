import Foundation

/// Where an anchored query stopped: HealthKit's `HKQueryAnchor`. Keep it (it is `Codable` and `NSSecureCoding`) and
/// pass it back to get only what changed since.
///
/// ```swift
/// let data = try JSONEncoder().encode(anchor)
/// let again = try JSONDecoder().decode(HKQueryAnchor.self, from: data)
/// ```
public final class HKQueryAnchor: NSObject, NSSecureCoding, Codable, Sendable {
    /// The server's anchor of the change feed.
    let value: String

    init(value: String) { self.value = value }

    /// An anchor from a number (HealthKit's `init(fromValue:)`); 0 is the beginning.
    public convenience init(fromValue value: Int) { self.init(value: String(value)) }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) { coder.encode(value as NSString, forKey: "anchor") }

    public required init?(coder: NSCoder) {
        guard let value = coder.decodeObject(of: NSString.self, forKey: "anchor") else { return nil }
        self.value = value as String
    }

    public override func isEqual(_ object: Any?) -> Bool { (object as? HKQueryAnchor)?.value == value }
    public override var hash: Int { value.hashValue }
    public override var description: String { "HKQueryAnchor(\(value))" }
}
