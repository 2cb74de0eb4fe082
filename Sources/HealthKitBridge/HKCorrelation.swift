import Foundation
import HealthAPI
import HealthModel

/// Samples that belong together — a meal's nutrients, a blood pressure's two values: HealthKit's `HKCorrelation`.
/// Saving a food correlation stores its nutrients and the meal that links them, authorized (as in HealthKit) by
/// the app's write access to each nutrient type it contains.
///
/// ```swift
/// let meal = HKCorrelation(type: HKCorrelationType(.food), start: now, end: now, objects: [calories, protein],
///                          metadata: [HKMetadataKeyFoodType: "Porridge"])
/// try await store.save(meal)
/// ```
public final class HKCorrelation: HKSample, @unchecked Sendable {
    public let objects: Set<HKSample>
    public var correlationType: HKCorrelationType {
        sampleType as? HKCorrelationType ?? HKCorrelationType(identifier: sampleType.identifier)
    }

    public init(type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date, objects: Set<HKSample>,
                metadata: [String: Any]?) {
        self.objects = objects
        super.init(type: correlationType, start: startDate, end: endDate, uuid: UUID(),
                   metadata: HKMetadata.sendable(metadata), source: HKSourceRevision(source: .default(), version: nil))
    }

    public convenience init(type correlationType: HKCorrelationType, start startDate: Date, end endDate: Date,
                            objects: Set<HKSample>) {
        self.init(type: correlationType, start: startDate, end: endDate, objects: objects, metadata: nil)
    }

    /// The members of one type.
    public func objects(for objectType: HKObjectType) -> Set<HKSample> {
        objects.filter { $0.sampleType == objectType }
    }

    /// The meal as the server's food log: one value per nutrient, in the units of a food label.
    func foodLog() throws(HKError) -> FoodLog {
        guard correlationType.serverName == "food" else {
            throw HKError(.errorInvalidArgument, "only food correlations can be saved here; save \(correlationType.identifier)'s samples")
        }
        var values: [String: Double] = [:]
        for member in objects {
            guard let sample = member as? HKQuantitySample else {
                throw HKError(.errorInvalidArgument, "a food correlation holds quantity samples only")
            }
            let (name, unit): (String, HKUnit) = switch sample.quantityType.serverName {
            case "dietaryEnergyConsumed": ("calories", .kilocalorie())
            case "dietaryProtein": ("protein", .gram())
            case "dietaryCarbohydrates": ("carbs", .gram())
            case "dietaryFatTotal": ("fat", .gram())
            case "dietaryFiber": ("fiber", .gram())
            case "dietarySugar": ("sugar", .gram())
            case "dietarySodium": ("sodium", .gramUnit(with: .milli))
            case "dietaryCholesterol": ("cholesterol", .gramUnit(with: .milli))
            case "dietaryFatSaturated": ("saturatedFat", .gram())
            default:
                throw HKError(.errorInvalidArgument, "\(sample.quantityType.identifier) cannot be part of a saved meal here")
            }
            let value = sample.quantity.doubleValue(for: unit)
            guard value.isFinite else {
                throw HKError(.errorInvalidArgument, "\(sample.quantity.unit.unitString) is not a unit of \(sample.quantityType.identifier)")
            }
            values[name, default: 0] += value
        }
        let name = (metadataValues[HKMetadataKeyFoodType]).map(\.wire) ?? "Food"
        return FoodLog(logId: HKMetadata.kitLogPrefix + uuid.uuidString, loggedAt: ISO8601.string(startDate), name: name,
                       calories: values["calories"] ?? 0, protein: values["protein"] ?? 0, carbs: values["carbs"] ?? 0,
                       fat: values["fat"] ?? 0, fiber: values["fiber"], sugar: values["sugar"], sodium: values["sodium"],
                       cholesterol: values["cholesterol"], saturatedFat: values["saturatedFat"])
    }
}
