import Foundation
import HealthModel
import HealthStore
import HealthXML

/// A `Workout` being read, with its events, statistics, activities and routes (inline `Location` points or a GPX
/// `FileReference` read after the XML).
struct WorkoutBuilder {
    let line: Int
    let offset: Int
    var activityType = ""
    var duration: Double?
    var durationUnit: String?
    var totalDistance: HealthWorkout.Measurement?
    var totalEnergy: HealthWorkout.Measurement?
    var source = HealthSource(name: "")
    var creation: Double?
    var start: ExportDate.Parsed?
    var end: ExportDate.Parsed?
    var badDate: String?
    var metadata: [String: String] = [:]
    var events: [HealthWorkout.Event] = []
    var statistics: [HealthWorkout.Statistic] = []
    var activities: [HealthWorkout.Activity] = []
    var routes: [RouteBuilder] = []
    private var open: Open = .none

    enum Open { case none, event(Int), route(Int), activity(Int) }

    struct RouteBuilder {
        var sourceName: String?
        var start: Double?
        var end: Double?
        var file: String?
        var metadata: [String: String] = [:]
        var points = RoutePointColumns()
    }

    init(_ element: XMLStartElement, caches: inout ParserCaches) {
        line = element.line
        offset = element.offset
        var common = SourceAndDates()
        var distance: Double?, distanceUnit: String?, energy: Double?, energyUnit: String?
        for attribute in element.attributes {
            if common.take(attribute) { continue }
            let name = attribute.name, v = attribute.value
            if name == "workoutActivityType" {
                let written = v.string
                activityType = WorkoutActivityType.named(written)?.name ?? written
            } else if name == "duration" { duration = v.double }
            else if name == "durationUnit" { durationUnit = v.string }
            else if name == "totalDistance" { distance = v.double }
            else if name == "totalDistanceUnit" { distanceUnit = v.string }
            else if name == "totalEnergyBurned" { energy = v.double }
            else if name == "totalEnergyBurnedUnit" { energyUnit = v.string }
        }
        (creation, start, end, badDate) = (common.creation, common.start, common.end, common.badDate)
        if let distance { totalDistance = .init(distance, distanceUnit ?? "km") }
        if let energy { totalEnergy = .init(energy, energyUnit ?? "kcal") }
        source = common.source(&caches)
    }

    static func seconds(_ value: Double?, unit: String?) -> Double? {
        guard let value else { return nil }
        guard let unit, unit != "s" else { return value }
        return (try? HealthUnit.parse(unit).convert(value, to: HealthUnit.parse("s"))) ?? value * 60
    }

    static func date(_ element: XMLStartElement, _ name: StaticString) -> Date? {
        element.attribute(named: name).flatMap { ExportDate.parse($0.rawBytes) }.map { Date(timeIntervalSince1970: $0.seconds) }
    }

    /// `depth`: the element's depth in the document (2 for the workout's own children).
    mutating func addChild(_ element: XMLStartElement, depth: Int) {
        let name = element.name
        if depth == 2 {
            if name == "MetadataEntry" {
                if let key = element.attribute(named: "key")?.string {
                    metadata[key] = element.attribute(named: "value")?.string ?? ""
                }
            } else if name == "WorkoutEvent" {
                events.append(Self.event(element))
                if !element.isSelfClosing { open = .event(events.count - 1) }
            } else if name == "WorkoutStatistics" {
                if let statistic = Self.statistic(element) { statistics.append(statistic) }
            } else if name == "WorkoutRoute" {
                var route = RouteBuilder()
                route.sourceName = element.attribute(named: "sourceName")?.string
                route.start = element.attribute(named: "startDate").flatMap { ExportDate.parse($0.rawBytes)?.seconds }
                route.end = element.attribute(named: "endDate").flatMap { ExportDate.parse($0.rawBytes)?.seconds }
                routes.append(route)
                if !element.isSelfClosing { open = .route(routes.count - 1) }
            } else if name == "WorkoutActivity" {
                if let start = Self.date(element, "startDate") {
                    activities.append(HealthWorkout.Activity(
                        uuid: element.attribute(named: "uuid")?.string, start: start, end: Self.date(element, "endDate"),
                        duration: Self.seconds(element.attribute(named: "duration")?.double,
                                               unit: element.attribute(named: "durationUnit")?.string),
                        metadata: nil))
                    if !element.isSelfClosing { open = .activity(activities.count - 1) }
                }
            }
            return
        }
        // Depth 3 and deeper: children of the open event, route or activity.
        switch open {
        case .event(let index):
            if name == "MetadataEntry", let key = element.attribute(named: "key")?.string {
                events[index].metadata = (events[index].metadata ?? [:]).merging(
                    [key: element.attribute(named: "value")?.string ?? ""]) { $1 }
            }
        case .route(let index):
            if name == "MetadataEntry", let key = element.attribute(named: "key")?.string {
                routes[index].metadata[key] = element.attribute(named: "value")?.string ?? ""
            } else if name == "FileReference" {
                routes[index].file = element.attribute(named: "path")?.string
            } else if name == "Location" {
                Self.appendLocation(element, to: &routes[index].points)
            }
        case .activity(let index):
            if name == "MetadataEntry", let key = element.attribute(named: "key")?.string {
                activities[index].metadata = (activities[index].metadata ?? [:]).merging(
                    [key: element.attribute(named: "value")?.string ?? ""]) { $1 }
            } else if name == "WorkoutEvent" {
                events.append(Self.event(element))
            } else if name == "WorkoutStatistics", let statistic = Self.statistic(element) {
                statistics.append(statistic)
            }
        case .none:
            break
        }
    }

    mutating func endChild(depth: Int) {
        if depth == 2 { open = .none }
    }

    static func event(_ element: XMLStartElement) -> HealthWorkout.Event {
        HealthWorkout.Event(type: element.attribute(named: "type")?.string ?? "",
                            date: date(element, "date") ?? Date(timeIntervalSince1970: 0),
                            duration: seconds(element.attribute(named: "duration")?.double,
                                              unit: element.attribute(named: "durationUnit")?.string))
    }

    static func statistic(_ element: XMLStartElement) -> HealthWorkout.Statistic? {
        guard let written = element.attribute(named: "type")?.string,
              let start = date(element, "startDate"), let end = date(element, "endDate") else { return nil }
        return HealthWorkout.Statistic(
            type: SampleTypeRegistry.registered(written)?.identifier ?? written, start: start, end: end,
            sum: element.attribute(named: "sum")?.double, average: element.attribute(named: "average")?.double,
            minimum: element.attribute(named: "minimum")?.double, maximum: element.attribute(named: "maximum")?.double,
            unit: element.attribute(named: "unit")?.string)
    }

    /// An inline `Location` point (exports before iOS 13); one without a date or coordinates is left out.
    static func appendLocation(_ element: XMLStartElement, to points: inout RoutePointColumns) {
        guard let time = element.attribute(named: "date").flatMap({ ExportDate.parse($0.rawBytes) })?.seconds,
              let lat = element.attribute(named: "latitude")?.double,
              let lon = element.attribute(named: "longitude")?.double else { return }
        points.append(time: time, latitude: lat, longitude: lon,
                      elevation: element.attribute(named: "altitude")?.double ?? .nan,
                      speed: element.attribute(named: "speed")?.double ?? .nan,
                      course: element.attribute(named: "course")?.double ?? .nan,
                      horizontalAccuracy: element.attribute(named: "horizontalAccuracy")?.double ?? .nan,
                      verticalAccuracy: element.attribute(named: "verticalAccuracy")?.double ?? .nan)
    }

    /// The workout, the routes whose points came inline, and the routes to read from GPX files.
    func build() -> Result<(HealthWorkout, [(UUID, RoutePointColumns)], [(route: UUID, path: String)]), HealthError> {
        guard !activityType.isEmpty else { return .failure(HealthError(.importMalformed, "has no workoutActivityType")) }
        guard let start, let end, end.seconds >= start.seconds else {
            return .failure(HealthError(.importMalformed, "has no readable, ordered startDate/endDate" + (badDate.map { " ('\($0)')" } ?? "")))
        }
        var inline: [(UUID, RoutePointColumns)] = []
        var files: [(route: UUID, path: String)] = []
        var routeSummaries: [HealthWorkout.Route] = []
        for route in routes {
            var hasher = StableHasher()
            hasher.combine("route:" + source.key)
            hasher.combine(start.seconds.bitPattern)
            hasher.combine((route.start ?? 0).bitPattern)
            hasher.combine((route.end ?? 0).bitPattern)
            hasher.combine(route.file ?? "")
            let id = hasher.uuid()
            let routeStart = route.start.map(Date.init(timeIntervalSince1970:)) ?? Date(timeIntervalSince1970: start.seconds)
            let routeEnd = route.end.map(Date.init(timeIntervalSince1970:)) ?? Date(timeIntervalSince1970: end.seconds)
            if let file = route.file, route.points.isEmpty {
                files.append((id, file))
            } else {
                inline.append((id, route.points))
            }
            routeSummaries.append(HealthWorkout.Route(
                uuid: id, start: routeStart, end: routeEnd, sourceName: route.sourceName, file: route.file,
                pointCount: route.points.count, metadata: route.metadata.isEmpty ? nil : route.metadata))
        }
        let workout = HealthWorkout(
            activityType: activityType, start: Date(timeIntervalSince1970: start.seconds),
            end: Date(timeIntervalSince1970: end.seconds), duration: Self.seconds(duration, unit: durationUnit),
            source: source, creationDate: creation.map(Date.init(timeIntervalSince1970:)), metadata: metadata,
            utcOffset: start.offset, totalDistance: totalDistance, totalEnergyBurned: totalEnergy, events: events,
            statistics: statistics, activities: activities, routes: routeSummaries)
        return .success((workout, inline, files))
    }
}
