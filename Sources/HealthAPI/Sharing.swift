import HealthModel

/// What one person of a household shares with another (a caregiver, a partner, a coach): whose data, with whom, and
/// the types the other may read. Nothing is shared by default and nothing shared is ever writable.
///
/// ```swift
/// SharedData(person: "alex", personName: "Alex", caregiver: "owner", caregiverName: "Owner",
///            read: "sleepAnalysis, stepCount", grant: .types(["sleepAnalysis", "stepCount"]))
/// ```
public struct SharedData: Codable, Sendable, Hashable {
    /// The person whose data it is.
    public var person: String
    public var personName: String
    /// The person who may read it.
    public var caregiver: String
    public var caregiverName: String
    /// `all`, `all except …`, or the types.
    public var read: String
    public var grant: TypeGrant

    public init(person: String, personName: String, caregiver: String, caregiverName: String, read: String,
                grant: TypeGrant) {
        self.person = person; self.personName = personName; self.caregiver = caregiver
        self.caregiverName = caregiverName; self.read = read; self.grant = grant
    }
}
