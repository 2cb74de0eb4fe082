import Foundation
import HealthImport
import HealthModel
import HealthStore
import Testing

/// One generated export with every element kind, zipped with a GPX route, an ECG and a FHIR resource.
enum FullExport {
    static let routePath = "workout-routes/route_2024-05-01_7.30am.gpx"
    static let ecgPath = "electrocardiograms/ecg_2024-05-01.csv"
    static let fhirPath = "clinical-records/Observation-7F3A.json"
    static let gpxPoints = 37
    static let ecgSamples = 25

    static func gpx(points: Int) -> Data {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
              <metadata><time>2024-05-02T07:00:00Z</time></metadata>
              <trk><name>Route 2024-05-01 7:30am</name><trkseg>

            """
        for i in 0..<points {
            let lat = 48.85 + Double(i) * 0.0001, lon = 2.35 + Double(i) * 0.0002
            let second = String(format: "%02d", i % 60), minute = String(format: "%02d", 31 + i / 60)
            text += "      <trkpt lon=\"\(lon)\" lat=\"\(lat)\"><ele>\(35 + i)</ele><time>2024-05-01T05:\(minute):\(second)Z</time>"
            text += "<extensions><speed>\(2.5 + Double(i) / 100)</speed><course>90</course><hAcc>3.5</hAcc><vAcc>2</vAcc></extensions></trkpt>\n"
        }
        text += "    </trkseg></trk>\n</gpx>\n"
        return Data(text.utf8)
    }

    static func ecg(samples: Int) -> Data {
        var text = """
            Name,Alex Martin
            Date of Birth,"Jan 1, 1990"
            Recorded Date,2024-05-01 08:00:00 +0200
            Classification,Sinus Rhythm
            Symptoms,
            Software Version,2
            Device,"Watch6,2"
            Sample Rate,512 hertz
            Lead,Lead I
            Unit,µV


            """
        for i in 0..<samples { text += "\(Double(i) * 1.5 - 12.25)\n" }
        return Data(text.utf8)
    }

    static let fhir = Data("""
        {"resourceType":"Observation","id":"7F3A","status":"final","code":{"text":"Hemoglobin A1c"},
         "valueQuantity":{"value":5.4,"unit":"%"}}
        """.utf8)

    static var fixture: ExportFixture {
        var export = ExportFixture()
        export.add(X.element("ExportDate", [("value", "2024-05-02 09:00:00 +0200")]))
        export.add(X.element("Me", [("HKCharacteristicTypeIdentifierDateOfBirth", "1990-01-01"),
                                    ("HKCharacteristicTypeIdentifierBiologicalSex", "HKBiologicalSexFemale"),
                                    ("HKCharacteristicTypeIdentifierBloodType", "HKBloodTypeAPositive"),
                                    ("HKCharacteristicTypeIdentifierFitzpatrickSkinType", "HKFitzpatrickSkinTypeNotSet")]))
        // Quantity with metadata and a time zone.
        export.add(X.record("HKQuantityTypeIdentifierStepCount", device: X.iPhoneDevice, unit: "count", value: "120",
                            creation: "2024-05-01 10:06:00 +0200", start: "2024-05-01 10:00:00 +0200",
                            end: "2024-05-01 10:05:00 +0200",
                            children: [X.metadata("HKTimeZone", "Europe/Paris"),
                                       X.metadata("HKWasUserEntered", "0")]))
        // Blood pressure children also at top level (as the DTD says).
        let systolic = X.record("HKQuantityTypeIdentifierBloodPressureSystolic", source: "Health", unit: "mmHg",
                                value: "121", start: "2024-05-01 08:30:00 +0200")
        let diastolic = X.record("HKQuantityTypeIdentifierBloodPressureDiastolic", source: "Health", unit: "mmHg",
                                 value: "79", start: "2024-05-01 08:30:00 +0200")
        export.add(systolic)
        export.add(diastolic)
        export.add(X.element("Correlation", [("type", "HKCorrelationTypeIdentifierBloodPressure"), ("sourceName", "Health"),
                                             ("sourceVersion", "17.4"), ("startDate", "2024-05-01 08:30:00 +0200"),
                                             ("endDate", "2024-05-01 08:30:00 +0200")],
                             children: [X.metadata("HKWasUserEntered", "1"), systolic, diastolic]))
        // Sleep, with the current names and the pre-iOS 16 "Asleep".
        let sleeps = [("HKCategoryValueSleepAnalysisInBed", "22:00", "23:00"),
                      ("HKCategoryValueSleepAnalysisAsleepCore", "23:00", "23:30"),
                      ("HKCategoryValueSleepAnalysisAsleepDeep", "23:30", "23:45"),
                      ("HKCategoryValueSleepAnalysisAsleepREM", "23:45", "23:50"),
                      ("HKCategoryValueSleepAnalysisAwake", "23:50", "23:55"),
                      ("HKCategoryValueSleepAnalysisAsleep", "23:55", "23:59")]
        for (value, start, end) in sleeps {
            export.add(X.record("HKCategoryTypeIdentifierSleepAnalysis", source: "Alex’s Apple Watch",
                                device: X.watchDevice, value: value, start: "2024-04-30 \(start):00 +0200",
                                end: "2024-04-30 \(end):00 +0200"))
        }
        // Mindful session without a value.
        export.add(X.record("HKCategoryTypeIdentifierMindfulSession", source: "Breathe", start: "2024-05-01 12:00:00 +0200",
                            end: "2024-05-01 12:05:00 +0200"))
        // HRV with its beat-to-beat list.
        export.add(X.record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", source: "Alex’s Apple Watch",
                            device: X.watchDevice, unit: "ms", value: "48.5", start: "2024-05-01 19:47:00 +0200",
                            end: "2024-05-01 19:48:00 +0200",
                            children: ["<HeartRateVariabilityMetadataList>",
                                       X.element("InstantaneousBeatsPerMinute", [("bpm", "72"), ("time", "7:47:41.86 PM")]),
                                       X.element("InstantaneousBeatsPerMinute", [("bpm", "68"), ("time", "7:47:53.78 PM")]),
                                       X.element("InstantaneousBeatsPerMinute", [("bpm", "70"), ("time", "7:47:59.02 PM")]),
                                       "</HeartRateVariabilityMetadataList>"]))
        // A type from a future iOS.
        export.add(X.record("HKQuantityTypeIdentifierFutureThing", unit: "count", value: "3.5",
                            start: "2024-05-01 13:00:00 +0200", end: "2024-05-01 13:01:00 +0200"))
        // A modern workout: events, statistics, metadata, a GPX route and an activity.
        export.add(X.element("Workout", [("workoutActivityType", "HKWorkoutActivityTypeRunning"), ("duration", "30"),
                                         ("durationUnit", "min"), ("totalDistance", "5.2"), ("totalDistanceUnit", "km"),
                                         ("totalEnergyBurned", "320"), ("totalEnergyBurnedUnit", "kcal"),
                                         ("sourceName", "Alex’s Apple Watch"), ("sourceVersion", "10.4"),
                                         ("device", X.watchDevice), ("creationDate", "2024-05-01 08:01:00 +0200"),
                                         ("startDate", "2024-05-01 07:30:00 +0200"), ("endDate", "2024-05-01 08:00:00 +0200")],
                             children: [
                                X.metadata("HKTimeZone", "Europe/Paris"),
                                X.metadata("HKIndoorWorkout", "0"),
                                X.element("WorkoutEvent", [("type", "HKWorkoutEventTypePause"), ("date", "2024-05-01 07:40:00 +0200")]),
                                X.element("WorkoutEvent", [("type", "HKWorkoutEventTypeSegment"), ("date", "2024-05-01 07:30:00 +0200"),
                                                           ("duration", "10"), ("durationUnit", "min")]),
                                X.element("WorkoutStatistics", [("type", "HKQuantityTypeIdentifierActiveEnergyBurned"),
                                                                ("startDate", "2024-05-01 07:30:00 +0200"),
                                                                ("endDate", "2024-05-01 08:00:00 +0200"),
                                                                ("sum", "320"), ("unit", "kcal")]),
                                X.element("WorkoutStatistics", [("type", "HKQuantityTypeIdentifierHeartRate"),
                                                                ("startDate", "2024-05-01 07:30:00 +0200"),
                                                                ("endDate", "2024-05-01 08:00:00 +0200"),
                                                                ("average", "151"), ("minimum", "98"),
                                                                ("maximum", "178"), ("unit", "count/min")]),
                                X.element("WorkoutRoute", [("sourceName", "Alex’s Apple Watch"),
                                                           ("startDate", "2024-05-01 07:31:00 +0200"),
                                                           ("endDate", "2024-05-01 07:59:00 +0200")],
                                          children: [X.metadata("HKMetadataKeySyncVersion", "2"),
                                                     X.element("FileReference", [("path", "/" + routePath)])]),
                                X.element("WorkoutActivity", [("uuid", "A1B2C3D4-0000-4000-8000-000000000001"),
                                                              ("startDate", "2024-05-01 07:30:00 +0200"),
                                                              ("endDate", "2024-05-01 08:00:00 +0200"),
                                                              ("duration", "30"), ("durationUnit", "min")],
                                          children: [X.metadata("HKIndoorWorkout", "0")]),
                             ]))
        // An old workout whose route points are inline Location elements.
        let locations = (0..<4).map { i in
            X.element("Location", [("date", "2016-06-05 09:1\(i):00 -0700"), ("latitude", "\(37.33 + Double(i) / 1000)"),
                                   ("longitude", "\(-122.03 - Double(i) / 1000)"), ("altitude", "\(20 + i)"),
                                   ("horizontalAccuracy", "5"), ("verticalAccuracy", "4"), ("course", "180"),
                                   ("speed", "3.1")])
        }
        export.add(X.element("Workout", [("workoutActivityType", "HKWorkoutActivityTypeCycling"), ("duration", "45"),
                                         ("durationUnit", "min"), ("totalDistance", "12"), ("totalDistanceUnit", "km"),
                                         ("sourceName", "Alex’s iPhone"), ("startDate", "2016-06-05 09:00:00 -0700"),
                                         ("endDate", "2016-06-05 09:45:00 -0700")],
                             children: [X.element("WorkoutRoute", [("sourceName", "Alex’s iPhone"),
                                                                   ("startDate", "2016-06-05 09:10:00 -0700"),
                                                                   ("endDate", "2016-06-05 09:13:00 -0700")],
                                                  children: locations)]))
        export.add(X.element("ActivitySummary", [("dateComponents", "2024-05-01"), ("activeEnergyBurned", "545.159"),
                                                 ("activeEnergyBurnedGoal", "690"), ("activeEnergyBurnedUnit", "Cal"),
                                                 ("appleMoveTime", "0"), ("appleMoveTimeGoal", "0"),
                                                 ("appleExerciseTime", "36"), ("appleExerciseTimeGoal", "30"),
                                                 ("appleStandHours", "10"), ("appleStandHoursGoal", "12")]))
        export.add(X.element("ActivitySummary", [("dateComponents", "2024-05-02"), ("activeEnergyBurned", "366.827"),
                                                 ("activeEnergyBurnedGoal", "690"), ("activeEnergyBurnedUnit", "Cal"),
                                                 ("appleExerciseTime", "11"), ("appleStandHours", "9")]))
        export.add(X.element("ClinicalRecord", [("type", "HKClinicalTypeIdentifierLabResultRecord"), ("identifier", "7F3A"),
                                                ("sourceName", "City Hospital"), ("sourceURL", "https://fhir.example.org/r4"),
                                                ("fhirVersion", "4.0.1"), ("receivedDate", "2024-04-20 10:00:00 +0200"),
                                                ("resourceFilePath", "/" + fhirPath)]))
        export.add(X.element("Audiogram", [("type", "HKDataTypeIdentifierAudiogram"), ("sourceName", "Mimi"),
                                           ("startDate", "2024-03-01 10:00:00 +0100"), ("endDate", "2024-03-01 10:10:00 +0100")],
                             children: [X.element("SensitivityPoint", [("frequencyValue", "1000"), ("frequencyUnit", "Hz"),
                                                                       ("leftEarValue", "20"), ("leftEarUnit", "dBHL"),
                                                                       ("rightEarValue", "15"), ("rightEarUnit", "dBHL")]),
                                        X.element("SensitivityPoint", [("frequencyValue", "4000"), ("frequencyUnit", "Hz"),
                                                                       ("leftEarValue", "35"), ("leftEarUnit", "dBHL"),
                                                                       ("rightEarValue", "30"), ("rightEarUnit", "dBHL")])]))
        export.add(X.element("VisionPrescription", [("type", "HKVisionPrescriptionTypeGlasses"), ("sourceName", "Health"),
                                                    ("dateIssued", "2023-01-10 00:00:00 +0100"),
                                                    ("expirationDate", "2025-01-10 00:00:00 +0100")],
                             children: [X.element("RightEye", [("sphere", "-1.25"), ("cylinder", "-0.5"), ("axis", "90")]),
                                        X.element("LeftEye", [("sphere", "-1"), ("cylinder", "-0.25"), ("axis", "85")])]))
        export.files[routePath] = gpx(points: gpxPoints)
        export.files[ecgPath] = ecg(samples: ecgSamples)
        export.files[fhirPath] = fhir
        return export
    }
}

/// A JSON document's object.
func jsonObject(_ document: HealthDocument) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(document.json.utf8))) as? [String: Any] ?? [:]
}

func date(_ text: String) -> Date {
    guard let date = ISO8601.date(text) else { fatalError("bad test date \(text)") }
    return date
}

@Suite("Every element kind of an export")
struct ElementKindTests {
    let dir: TempDir
    let store: SQLiteHealthStore
    let report: ImportReport

    init() async throws {
        dir = try TempDir()
        let url = try FullExport.fixture.writeZip(in: dir.url, mainName: "导出.xml")
        (store, report) = try await importFresh(url)
    }

    @Test("the localised main file is found by content, export_cda.xml and __MACOSX are ignored")
    func header() {
        #expect(report.exportVersion == 14)
        #expect(report.locale == "en_US")
        #expect(report.exportDate == "2024-05-02 09:00:00 +0200")
        #expect(report.skippedCount == 0, "\(report.skipped)")
        #expect(report.routesMissing.isEmpty)
        #expect(report.alreadyImported == false)
    }

    @Test("Me and ExportDate are kept as documents")
    func meAndExportDate() async throws {
        let me = try await store.documents(kind: .me, start: nil, end: nil, limit: nil)
        #expect(me.count == 1)
        #expect(jsonObject(try #require(me.first))["HKCharacteristicTypeIdentifierBiologicalSex"] as? String == "HKBiologicalSexFemale")
        let info = try await store.documents(kind: .exportInfo, start: nil, end: nil, limit: nil)
        #expect(info.count == 1)
        #expect(info.first?.start == date("2024-05-02T07:00:00Z"))
    }

    @Test("a quantity record keeps its value, unit, metadata, offset, time zone, device and dates")
    func quantity() async throws {
        let steps = try await allSamples(store, "stepCount")
        let sample = try #require(steps.first)
        #expect(steps.count == 1)
        #expect(sample.value == .quantity(120, unit: "count"))
        #expect(sample.start == date("2024-05-01T08:00:00Z"))
        #expect(sample.end == date("2024-05-01T08:05:00Z"))
        #expect(sample.creationDate == date("2024-05-01T08:06:00Z"))
        #expect(sample.utcOffset == 7200)
        #expect(sample.timeZone == "Europe/Paris")
        #expect(sample.metadata["HKWasUserEntered"] == "0")
        #expect(sample.source.name == "Alex’s iPhone")
        #expect(sample.source.version == "17.4")
        #expect(sample.source.device?.hardware == "iPhone15,2")
        #expect(sample.source.device?.model == "iPhone")
    }

    @Test("sleep values, including the pre-iOS 16 HKCategoryValueSleepAnalysisAsleep, become raw category values")
    func sleep() async throws {
        let sleep = try await allSamples(store, "sleepAnalysis")
        #expect(sleep.map(\.value) == [.category(0), .category(3), .category(4), .category(5), .category(2), .category(1)])
        #expect(sleep.allSatisfy { $0.source.device?.model == "Watch" })
    }

    @Test("a mindful session without a value is stored without one")
    func mindful() async throws {
        let sessions = try await allSamples(store, "mindfulSession")
        #expect(sessions.count == 1)
        #expect(sessions.first?.value == SampleValue.none)
        #expect(sessions.first?.duration == 300)
    }

    @Test("an HRV record keeps its instantaneous beats per minute")
    func hrv() async throws {
        let hrv = try #require(try await allSamples(store, "heartRateVariabilitySDNN").first)
        #expect(hrv.value == .quantity(48.5, unit: "ms"))
        let beatsJSON = try #require(hrv.metadata["HKHeartRateVariabilityBeats"])
        let beats = try #require(try JSONSerialization.jsonObject(with: Data(beatsJSON.utf8)) as? [[String: Any]])
        #expect(beats.compactMap { $0["bpm"] as? Double } == [72, 68, 70])
        #expect(beats.compactMap { $0["time"] as? String } == ["7:47:41.86 PM", "7:47:53.78 PM", "7:47:59.02 PM"])
    }

    @Test("a blood-pressure correlation whose records also appear at top level: stored once, linked by UUID")
    func correlation() async throws {
        let systolic = try await allSamples(store, "bloodPressureSystolic")
        let diastolic = try await allSamples(store, "bloodPressureDiastolic")
        #expect(systolic.count == 1)
        #expect(diastolic.count == 1)
        #expect(systolic.first?.value == .quantity(121, unit: "mmHg"))
        let correlations = try await store.correlations(type: "bloodPressure", start: nil, end: nil, limit: nil)
        #expect(correlations.count == 1)
        let bp = try #require(correlations.first)
        #expect(Set(bp.members) == Set((systolic + diastolic).map(\.uuid)))
        #expect(bp.members.count == 2)
        #expect(bp.metadata["HKWasUserEntered"] == "1")
        #expect(report.elements["Correlation"] == 1)
        #expect(report.elements["Record (in Correlation)"] == 2)
        #expect(report.correlationsInserted == 1)
    }

    @Test("a modern workout: type, duration in minutes, totals, events, statistics, metadata, activity, GPX route")
    func workout() async throws {
        let workouts = try await store.workouts(WorkoutQuery(ascending: true))
        #expect(workouts.count == 2)
        let run = try #require(workouts.first { $0.activityType == "running" })
        #expect(run.duration == 1800)
        #expect(run.start == date("2024-05-01T05:30:00Z"))
        #expect(run.utcOffset == 7200)
        #expect(run.timeZone == "Europe/Paris")
        #expect(run.totalDistance == HealthWorkout.Measurement(5.2, "km"))
        #expect(run.totalEnergyBurned == HealthWorkout.Measurement(320, "kcal"))
        #expect(run.metadata["HKIndoorWorkout"] == "0")
        #expect(run.events.map(\.type) == ["HKWorkoutEventTypePause", "HKWorkoutEventTypeSegment"])
        #expect(run.events.last?.duration == 600)
        #expect(run.events.first?.date == date("2024-05-01T05:40:00Z"))
        let energy = try #require(run.statistics.first { $0.type == "activeEnergyBurned" })
        #expect(energy.sum == 320)
        #expect(energy.unit == "kcal")
        let heart = try #require(run.statistics.first { $0.type == "heartRate" })
        #expect(heart.average == 151 && heart.minimum == 98 && heart.maximum == 178)
        #expect(run.activities.count == 1)
        #expect(run.activities.first?.duration == 1800)
        #expect(run.activities.first?.metadata?["HKIndoorWorkout"] == "0")

        let route = try #require(run.routes.first)
        #expect(run.routes.count == 1)
        #expect(route.file == "/" + FullExport.routePath)
        #expect(route.metadata?["HKMetadataKeySyncVersion"] == "2")
        let points = try await store.routePoints(route.uuid, offset: 0, limit: 10_000)
        #expect(points.count == FullExport.gpxPoints)
        #expect(points.count == ByteCount.occurrences(of: "<trkpt", in: FullExport.gpx(points: FullExport.gpxPoints)))
        let first = try #require(points.first)
        let last = try #require(points.last)
        #expect(first.latitude == 48.85 && first.longitude == 2.35)
        #expect(first.elevation == 35)
        #expect(first.speed == 2.5 && first.course == 90 && first.horizontalAccuracy == 3.5 && first.verticalAccuracy == 2)
        #expect(first.time == date("2024-05-01T05:31:00Z"))
        #expect(last.elevation == Double(35 + FullExport.gpxPoints - 1))
        #expect(points.map(\.time) == points.map(\.time).sorted())
        #expect(report.elements["GPX file"] == 1)
    }

    @Test("an old workout route with inline Location points")
    func inlineRoute() async throws {
        let ride = try #require(try await store.workouts(WorkoutQuery(activityTypes: ["cycling"])).first)
        #expect(ride.duration == 2700)
        #expect(ride.utcOffset == -25200)
        let route = try #require(ride.routes.first)
        #expect(route.pointCount == 4)
        let points = try await store.routePoints(route.uuid, offset: 0, limit: 100)
        #expect(points.count == 4)
        #expect(points.first?.latitude == 37.33)
        #expect(points.first?.elevation == 20)
        #expect(points.first?.speed == 3.1)
        #expect(points.last?.time == date("2016-06-05T16:13:00Z"))
        #expect(report.routePoints == 4 + FullExport.gpxPoints)
    }

    @Test("ActivitySummary is a document of numbers, dated by its day")
    func activitySummary() async throws {
        let summaries = try await store.documents(kind: .activitySummary, start: nil, end: nil, limit: nil)
        #expect(summaries.count == 2)
        let first = try #require(summaries.first { $0.start == date("2024-05-01T00:00:00Z") })
        let object = jsonObject(first)
        #expect(object["activeEnergyBurned"] as? Double == 545.159)
        #expect(object["appleExerciseTimeGoal"] as? Double == 30)
        #expect(object["appleStandHours"] as? Double == 10)
        #expect(object["activeEnergyBurnedUnit"] as? String == "Cal")
        #expect(first.end == date("2024-05-02T00:00:00Z"))
    }

    @Test("a clinical record carries its FHIR resource from clinical-records/")
    func clinical() async throws {
        let records = try await store.documents(kind: .clinicalRecord, start: nil, end: nil, limit: nil)
        let record = try #require(records.first)
        #expect(records.count == 1)
        let object = jsonObject(record)
        #expect(object["fhirVersion"] as? String == "4.0.1")
        let resource = try #require(object["fhirResource"] as? [String: Any])
        #expect(resource["resourceType"] as? String == "Observation")
        #expect((resource["valueQuantity"] as? [String: Any])?["value"] as? Double == 5.4)
        #expect(record.sourceName == "City Hospital")
        #expect(record.start == date("2024-04-20T08:00:00Z"))
    }

    @Test("an audiogram keeps its sensitivity points")
    func audiogram() async throws {
        let audiograms = try await store.documents(kind: .audiogram, start: nil, end: nil, limit: nil)
        #expect(audiograms.count == 1)
        let audiogram = try #require(audiograms.first)
        let points = try #require(jsonObject(audiogram)["SensitivityPoint"] as? [[String: Any]])
        #expect(points.compactMap { $0["frequencyValue"] as? Double } == [1000, 4000])
        #expect(points.compactMap { $0["leftEarValue"] as? Double } == [20, 35])
    }

    @Test("a vision prescription keeps both eyes")
    func vision() async throws {
        let prescriptions = try await store.documents(kind: .visionPrescription, start: nil, end: nil, limit: nil)
        let prescription = try #require(prescriptions.first)
        #expect(prescriptions.count == 1)
        let object = jsonObject(prescription)
        #expect((object["RightEye"] as? [[String: Any]])?.first?["sphere"] as? Double == -1.25)
        #expect((object["LeftEye"] as? [[String: Any]])?.first?["axis"] as? Double == 85)
        #expect(prescription.start == date("2023-01-09T23:00:00Z"))
        #expect(prescription.end == date("2025-01-09T23:00:00Z"))
    }

    @Test("an electrocardiogram CSV becomes a document with its header and samples")
    func electrocardiogram() async throws {
        let ecgs = try await store.documents(kind: .electrocardiogram, start: nil, end: nil, limit: nil)
        let ecg = try #require(ecgs.first)
        #expect(ecgs.count == 1)
        let object = jsonObject(ecg)
        let header = try #require(object["header"] as? [String: String])
        #expect(header["Classification"] == "Sinus Rhythm")
        #expect(header["Date of Birth"] == "Jan 1, 1990")
        let samples = try #require(object["samples"] as? [Double])
        #expect(samples.count == FullExport.ecgSamples)
        #expect(samples.first == -12.25)
        #expect(ecg.start == date("2024-05-01T06:00:00Z"))
        #expect(ecg.end == date("2024-05-01T06:00:00Z").addingTimeInterval(Double(FullExport.ecgSamples) / 512))
        #expect(report.elements["Electrocardiogram"] == 1)
    }

    @Test("an unknown future type is stored under its identifier and can be queried")
    func futureType() async throws {
        let future = try await allSamples(store, "HKQuantityTypeIdentifierFutureThing")
        #expect(future.count == 1)
        #expect(future.first?.value == .quantity(3.5, unit: "count"))
        let summary = try await store.typeSummaries().first { $0.type == "HKQuantityTypeIdentifierFutureThing" }
        #expect(summary?.count == 1)
        #expect(summary?.kind == .quantity)
        #expect(report.recordTypes["HKQuantityTypeIdentifierFutureThing"] == 1)
    }

    @Test("nothing else was stored: the CDA document's record is not imported")
    func nothingExtra() async throws {
        let types = Set(try await store.typeSummaries().map(\.type))
        #expect(types == ["stepCount", "bloodPressureSystolic", "bloodPressureDiastolic", "sleepAnalysis", "mindfulSession",
                          "heartRateVariabilitySDNN", "HKQuantityTypeIdentifierFutureThing", "bloodPressure", "workout"])
        #expect(try await sampleCount(store) == 12)
        #expect(report.samplesInserted == 12)
        // The duplicated blood-pressure records are read twice but stored once.
        #expect(report.samplesAlreadyStored == 2)
    }
}

@Suite("Old formats, dates and sources")
struct FormatTests {
    @Test("iOS 8 exports: source= instead of sourceName= and compact dates with their offset")
    func legacyFormat() async throws {
        let dir = try TempDir()
        let export = ExportFixture(version: 3, [
            X.record("HKQuantityTypeIdentifierStepCount", source: "iPhone", version: nil, unit: "count", value: "57",
                     creation: "20140114090000-0800", start: "20140114084347-0800", end: "20140114085347-0800",
                     sourceAttribute: "source"),
            X.record("HKQuantityTypeIdentifierBodyMass", source: "Health", version: nil, unit: "lb", value: "160.5",
                     start: "20140115070000+0530", end: "20140115070000+0530", sourceAttribute: "source"),
        ])
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        #expect(report.skippedCount == 0, "\(report.skipped)")
        #expect(report.exportVersion == 3)
        let steps = try #require(try await allSamples(store, "stepCount").first)
        #expect(steps.source.name == "iPhone")
        #expect(steps.start == date("2014-01-14T16:43:47Z"))
        #expect(steps.end == date("2014-01-14T16:53:47Z"))
        #expect(steps.creationDate == date("2014-01-14T17:00:00Z"))
        #expect(steps.utcOffset == -28800)
        let mass = try #require(try await allSamples(store, "bodyMass").first)
        #expect(mass.source.name == "Health")
        #expect(mass.utcOffset == 19800)
        #expect(mass.start == date("2014-01-15T01:30:00Z"))
        #expect(mass.value == .quantity(160.5, unit: "lb"))
    }

    @Test("dates keep the offset they were written with; HKTimeZone metadata names the real zone")
    func offsets() async throws {
        let dir = try TempDir()
        let export = ExportFixture([
            X.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "61", start: "2023-07-01 08:00:00 -0400",
                     children: [X.metadata("HKTimeZone", "America/New_York")]),
            X.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "62", start: "2023-12-01 08:00:00 +0100"),
            X.record("HKQuantityTypeIdentifierHeartRate", unit: "count/min", value: "63", start: "2023-12-02 08:00:00 +0545"),
        ])
        let (store, _) = try await importFresh(try export.writeXML(in: dir.url))
        let samples = try await allSamples(store, "heartRate")
        #expect(samples.map(\.utcOffset) == [-14400, 3600, 20700])
        #expect(samples.map(\.timeZone) == ["America/New_York", nil, nil])
        #expect(samples.map(\.start) == [date("2023-07-01T12:00:00Z"), date("2023-12-01T07:00:00Z"), date("2023-12-02T02:15:00Z")])
    }

    @Test("device strings that differ only by their HKDevice address are one source")
    func deviceAddresses() async throws {
        let dir = try TempDir()
        var export = ExportFixture()
        for i in 0..<5 {
            let device = X.device("iPhone", model: "iPhone", hardware: "iPhone15,2", address: "0x28\(1000 + i * 17)ab")
            export.add(X.steps(10 + i, start: "2024-05-01 10:0\(i):00 +0200", end: "2024-05-01 10:0\(i):30 +0200",
                               device: device))
        }
        // Interleave another source so that no cache can hide the problem.
        export.elements.insert(X.steps(99, start: "2024-05-01 11:00:00 +0200", end: "2024-05-01 11:01:00 +0200",
                                       source: "Alex’s Apple Watch", device: X.watchDevice), at: 2)
        let (store, report) = try await importFresh(try export.writeXML(in: dir.url))
        #expect(report.samplesInserted == 6)
        let sources = try await store.sources(type: "stepCount")
        #expect(sources.count == 2, "\(sources.map(\.source))")
        #expect(sources.first { $0.source.name == "Alex’s iPhone" }?.count == 5)
    }

    @Test("an unzipped export folder and a bare export.xml import the same as the zip")
    func inputKinds() async throws {
        let dir = try TempDir()
        let export = FullExport.fixture
        let zip = try export.writeZip(in: dir.url, mainName: "экспорт.xml")
        let folderDir = try TempDir()
        let folder = try export.writeFolder(in: folderDir.url, mainName: "dışa aktarılan.xml")
        let xmlDir = try TempDir()
        let xml = try export.writeXML(in: xmlDir.url, name: "exportar.xml")
        let fromZip = try await StoreSnapshot.of(try await importFresh(zip).0)
        let fromFolder = try await StoreSnapshot.of(try await importFresh(folder).0)
        let fromXML = try await StoreSnapshot.of(try await importFresh(xml).0)
        // The folder's parent, and a zip whose files sit at its root.
        let fromParent = try await StoreSnapshot.of(try await importFresh(folderDir.url).0)
        let rootZipDir = try TempDir()
        let rootZip = try export.writeZip(in: rootZipDir.url, mainName: "導出.xml", root: "")
        let fromRootZip = try await StoreSnapshot.of(try await importFresh(rootZip).0)
        #expect(fromParent == fromZip)
        #expect(fromRootZip == fromZip)
        #expect(fromZip.sampleCount == 12)
        #expect(fromZip.routePoints.values.sorted() == [4, FullExport.gpxPoints])
        #expect(fromFolder == fromZip)
        #expect(fromXML == fromZip)
    }
}
