import Foundation
import HealthModel
import HealthStore

/// What a workout route amounts to: distance along the track, elevation gain, extremes, bounds and pace, computed in
/// one pass over the route's columns (no object per point).
///
/// Distance is the sum of great-circle (haversine) distances between consecutive points. Elevation gain counts climbs
/// with a 5 m hysteresis, so that GPS noise does not add up to a climb. Speed and pace are given when the route lasts
/// and covers more than 10 m.
///
/// ```swift
/// let columns = try await BulkWriter(store).routeColumns(route.uuid, offset: 0, limit: .max)   // any HealthStore
/// let summary = RouteSummary(columns)
/// print(summary.distanceMeters, summary.elevationGainMeters ?? 0)
/// ```
public struct RouteSummary: Sendable, Hashable {
    public struct Bounds: Sendable, Hashable {
        public var minLatitude: Double
        public var maxLatitude: Double
        public var minLongitude: Double
        public var maxLongitude: Double
    }

    public var pointCount: Int
    /// Seconds since 1970 of the first and last points; nil without points.
    public var start: Double?
    public var end: Double?
    public var distanceMeters: Double
    /// Nil when no point has an elevation.
    public var elevationGainMeters: Double?
    public var minElevationMeters: Double?
    public var maxElevationMeters: Double?
    /// Nil unless the route lasts and covers more than 10 m.
    public var averageSpeedMetersPerSecond: Double?
    public var paceMinutesPerKilometer: Double?
    public var bounds: Bounds?

    /// The hysteresis of the elevation gain, in meters.
    public static let climbThreshold = 5.0

    public init(_ columns: RoutePointColumns) {
        let count = columns.count
        pointCount = count
        distanceMeters = 0
        guard count > 0 else { return }
        let time = columns.time, latitude = columns.latitude, longitude = columns.longitude
        let elevation = columns.elevation
        start = time[0]
        end = time[count - 1]
        var distance = 0.0, gain = 0.0
        var reference: Double? = elevation[0].isNaN ? nil : elevation[0]
        var minEle = reference, maxEle = reference
        var minLat = latitude[0], maxLat = latitude[0], minLon = longitude[0], maxLon = longitude[0]
        for index in 1..<max(1, count) {
            distance += Self.haversine(latitude[index - 1], longitude[index - 1], latitude[index], longitude[index])
            let e = elevation[index]
            if !e.isNaN {
                if let r = reference {
                    if e - r >= Self.climbThreshold { gain += e - r; reference = e } else if e < r { reference = e }
                } else {
                    reference = e
                }
                minEle = min(minEle ?? e, e)
                maxEle = max(maxEle ?? e, e)
            }
            minLat = min(minLat, latitude[index]); maxLat = max(maxLat, latitude[index])
            minLon = min(minLon, longitude[index]); maxLon = max(maxLon, longitude[index])
        }
        distanceMeters = distance
        if minEle != nil { elevationGainMeters = gain }
        minElevationMeters = minEle
        maxElevationMeters = maxEle
        let seconds = time[count - 1] - time[0]
        if seconds > 0, distance > 10 {
            averageSpeedMetersPerSecond = distance / seconds
            paceMinutesPerKilometer = seconds / 60 / (distance / 1000)
        }
        bounds = Bounds(minLatitude: minLat, maxLatitude: maxLat, minLongitude: minLon, maxLongitude: maxLon)
    }

    /// Great-circle distance in meters between two points given in degrees.
    public static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_000.0
        let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
        let Δφ = (lat2 - lat1) * .pi / 180, Δλ = (lon2 - lon1) * .pi / 180
        let h = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * r * atan2(sqrt(h), sqrt(max(0, 1 - h)))
    }
}
