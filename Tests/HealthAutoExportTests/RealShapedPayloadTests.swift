import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthAutoExport
@testable import HealthService

/// Payloads of the shapes real Health Auto Export pushes have (issue 25): bucket extremes in statistics, v2 workout
/// energy, nutrients and vitals by HAE's names, localised enum values.
@Suite struct RealShapedPayloadTests {
    static func quantity(_ sample: HealthSample) -> Double? { IngestTests.quantity(sample) }
    static func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { IngestTests.close(a, b, tolerance) }

    @Test func hourlyHeartRateMinimumAndMaximumCountInTheDaysSummary() async throws {
        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("heart-rate-hourly-minmax.json"),
                                                              info: IngestBatchInfo(aggregation: "hours"))
        #expect(report.inserted == 2)
        let owner = service.acting(as: .owner)
        let day = try await owner.summary(SummaryRequest(type: "heartRate", start: "2024-03-04", end: "2024-03-05",
                                                         interval: "total"))
        let bucket = try #require(day.buckets.first)
        #expect(bucket.min == 58 && bucket.max == 112, "the hour's own extremes, not its average")
        #expect(bucket.average == (71.5 + 68) / 2, "the average stays the average of the averages")
        // Hourly: each hour keeps its own extremes.
        let hours = try await owner.summary(SummaryRequest(type: "heartRate", start: "2024-03-04T08:00:00+01:00",
                                                           end: "2024-03-04T10:00:00+01:00", interval: "hour"))
        #expect(hours.buckets.map(\.min) == [58, 62] && hours.buckets.map(\.max) == [112, 80])
        // Per source, and in another unit, the same.
        let perSecond = try await owner.summary(SummaryRequest(type: "heartRate", start: "2024-03-04", end: "2024-03-05",
                                                               interval: "total", bySource: true, unit: "count/s"))
        #expect(Self.close(perSecond.buckets.first?.max, 112.0 / 60))
        #expect(perSecond.bySource?.first.map { Self.close($0.buckets.first?.min, 58.0 / 60) } == true)
    }

    @Test func workoutsV2TakeTheirEnergyFromTheTotalOrTheSeries() async throws {
        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("workouts-v2-energy-series.json"))
        #expect(report.inserted == 4 && report.rejected.isEmpty)
        let workouts = try await service.store.workouts(WorkoutQuery()).sorted { $0.start < $1.start }
        #expect(workouts.count == 4)
        // The per-minute series summed (20.92 kJ = 5 kcal).
        #expect(Self.close(workouts[0].totalEnergyBurned?.value, 4.5 + 5.25 + 5))
        #expect(workouts[0].statistics.contains { $0.type == "activeEnergyBurned" && Self.close($0.sum, 14.75) })
        // The total wins over the series.
        #expect(workouts[1].totalEnergyBurned?.value == 30)
        // A version 1 total under `activeEnergy`.
        #expect(workouts[2].totalEnergyBurned?.value == 250)
        #expect(workouts[3].totalEnergyBurned == nil)
        #expect(workouts.map(\.activityType) == ["walking", "cycling", "running", "running"])
    }

    @Test func nutrientsVitalsAndBodyMeasurementsAreMapped() async throws {
        let names = ["calcium": "dietaryCalcium", "iron": "dietaryIron", "magnesium": "dietaryMagnesium",
                     "potassium": "dietaryPotassium", "vitamin_c": "dietaryVitaminC", "zinc": "dietaryZinc",
                     "vitamin_b12": "dietaryVitaminB12", "vitamin_b6": "dietaryVitaminB6", "vitamin_a": "dietaryVitaminA",
                     "vitamin_d": "dietaryVitaminD", "vitamin_e": "dietaryVitaminE", "vitamin_k": "dietaryVitaminK",
                     "thiamin": "dietaryThiamin", "riboflavin": "dietaryRiboflavin", "niacin": "dietaryNiacin",
                     "folate": "dietaryFolate", "biotin": "dietaryBiotin", "pantothenic_acid": "dietaryPantothenicAcid",
                     "phosphorus": "dietaryPhosphorus", "iodine": "dietaryIodine", "selenium": "dietarySelenium",
                     "copper": "dietaryCopper", "manganese": "dietaryManganese", "chromium": "dietaryChromium",
                     "molybdenum": "dietaryMolybdenum", "chloride": "dietaryChloride",
                     "monounsaturated_fat": "dietaryFatMonounsaturated", "polyunsaturated_fat": "dietaryFatPolyunsaturated",
                     "respiratory_rate": "respiratoryRate", "body_fat_percentage": "bodyFatPercentage",
                     "waist_circumference": "waistCircumference", "height": "height", "lean_body_mass": "leanBodyMass",
                     "basal_body_temperature": "basalBodyTemperature", "peripheral_perfusion_index": "peripheralPerfusionIndex",
                     "blood_alcohol_content": "bloodAlcoholContent", "forced_vital_capacity": "forcedVitalCapacity",
                     "walking_speed": "walkingSpeed", "electrodermal_activity": "electrodermalActivity",
                     "atrial_fibrillation_burden": "atrialFibrillationBurden", "time_in_daylight": "timeInDaylight"]
        for (name, type) in names { #expect(HAEMetricCatalog.type(for: name) == type, "\(name)") }
        #expect(HAEMetricCatalog.type(for: "stepcount_nonsense") == nil)
        #expect(HAEMetricCatalog.type(for: "workout") == nil)

        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("nutrients-vitals.json"))
        #expect(report.unknown.isEmpty && report.rejected.isEmpty, "\(report.unknown) \(report.reasons)")
        #expect(report.inserted == 13)
        #expect(try await Fixture.samples(service, "dietaryCalcium").compactMap(Self.quantity).map { Self.close($0, 0.82) } == [true])
        #expect(try await Fixture.samples(service, "dietaryVitaminC").compactMap(Self.quantity).map { Self.close($0, 0.095) } == [true])
        #expect(try await Fixture.samples(service, "dietaryVitaminB12").compactMap(Self.quantity).map { Self.close($0, 2.4e-6) } == [true])
        #expect(try await Fixture.samples(service, "bodyFatPercentage").compactMap(Self.quantity) == [0.185])
        #expect(try await Fixture.samples(service, "waistCircumference").compactMap(Self.quantity).map { Self.close($0, 0.8128) } == [true])
        // "livres": a French phone's pounds, converted with the exact pound.
        #expect(try await Fixture.samples(service, "bodyMass").compactMap(Self.quantity).map { Self.close($0, 150 * 0.45359237) } == [true])
    }

    @Test func localisedSleepStagesWorkoutsAndUnits() async throws {
        for (name, stage) in [("Cœur", 3), ("Coeur", 3), ("Profond", 4), ("Tief", 4), ("Tiefschlaf", 4), ("Kern", 3),
                              ("Paradoxal", 5), ("Sommeil paradoxal", 5), ("Éveillé", 2), ("Wach", 2), ("Despierto", 2),
                              ("Sveglio", 2), ("Au lit", 0), ("Im Bett", 0), ("En cama", 0), ("A letto", 0),
                              ("Endormi", 1), ("Schlafend", 1), ("Dormido", 1), ("Addormentato", 1), ("Profundo", 4),
                              ("Profondo", 4), ("Núcleo", 3), ("Sueño REM", 5), ("REM", 5), ("In Bed", 0), ("Core", 3),
                              ("Asleep", 1), ("Awake", 2)] {
            #expect(HAEPayloadReader.stage(name) == stage, "\(name)")
        }
        #expect(HAEPayloadReader.stage("Rêve lucide") == nil)
        for (name, type) in [("Course à pied", "running"), ("Laufen", "running"), ("Correr", "running"),
                             ("Corsa", "running"), ("Course en extérieur", "running"), ("Marche", "walking"),
                             ("Gehen", "walking"), ("Caminata", "walking"), ("Camminata", "walking"),
                             ("Vélo", "cycling"), ("Radfahren", "cycling"), ("Ciclismo", "cycling"),
                             ("Natation", "swimming"), ("Schwimmen", "swimming"), ("Natación", "swimming"),
                             ("Nuoto", "swimming"), ("Randonnée", "hiking"), ("Wandern", "hiking"),
                             ("Senderismo", "hiking"), ("Musculation", "traditionalStrengthTraining"),
                             ("Krafttraining", "traditionalStrengthTraining"), ("Outdoor Run", "running"),
                             ("Traditional Strength Training", "traditionalStrengthTraining"), ("Yoga", "yoga")] {
            #expect(HAEPayloadReader.activityType(name) == type, "\(name)")
        }
        for (text, unit) in [("livres", "lb"), ("Pfund", "lb"), ("libras", "lb"), ("lb", "lb"), ("kilogrammes", "kg"),
                             ("Meilen", "mi"), ("µg", "mcg"), ("kg", "kg")] {
            #expect(HAEMetricCatalog.unit(text) == unit, "\(text)")
        }

        let service = try await Fixture.ingestService()
        let report = try await service.ingestHealthAutoExport(try Fixture.bytes("sleep-localized.json"))
        #expect(report.rejected.isEmpty && report.inserted == 10, "\(report.reasons)")
        let stages = try await Fixture.samples(service, "sleepAnalysis").compactMap { sample -> Int? in
            if case .category(let value) = sample.value { return value }
            return nil
        }
        #expect(stages == [0, 3, 4, 5, 2, 4, 3, 4, 2, 5])
    }
}
