import Foundation

extension NSSortDescriptor {
    /// HealthKit's sort descriptors by key, which swift-corelibs-foundation does not offer (it has no key-value
    /// coding): `HKSampleSortIdentifierStartDate` and `HKSampleSortIdentifierEndDate` become key paths of ``HKSample``.
    ///
    /// ```swift
    /// let newestFirst = NSSortDescriptor(key: HKSampleSortIdentifierStartDate, ascending: false)
    /// ```
    public convenience init(key: String, ascending: Bool) {
        if key == HKSampleSortIdentifierEndDate {
            self.init(keyPath: \HKSample.endDate, ascending: ascending)
        } else {
            self.init(keyPath: \HKSample.startDate, ascending: ascending)
        }
    }

    /// The HealthKit sort key of a descriptor made by ``init(key:ascending:)``; nil for any other.
    var healthKitKey: String? {
        switch keyPath {
        case \HKSample.startDate: HKSampleSortIdentifierStartDate
        case \HKSample.endDate: HKSampleSortIdentifierEndDate
        default: nil
        }
    }
}
