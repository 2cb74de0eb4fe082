import Foundation

extension WorkoutDetail {
    /// One workout as people read it, the same through the CLI and MCP: its row, pace, statistics, events, route
    /// summary, the route points asked for, and how to get more of them.
    ///
    /// ```swift
    /// print(detail.text(style))
    /// // start             activity  min    km  kcal  route  source       uuid
    /// // …
    /// // Pace: 5:10 /km
    /// // heartRate: avg 152.3, min 118, max 178 bpm
    /// // Route: 840 points, 8.12 km along the track, +64 m
    /// ```
    package func text(_ style: TextStyle) -> String {
        var lines = [WorkoutRecord.table([workout])]
        if let seconds = workout.paceSecondsPerKm {
            lines.append("Pace: \(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60) /km")
        }
        for statistic in statistics {
            let figures = [("total", statistic.sum, 2), ("avg", statistic.average, 1), ("min", statistic.min, 1), ("max", statistic.max, 1)]
                .compactMap { name, value, decimals in value.map { "\(name) \(TextFormat.number($0, decimals: decimals))" } }
            lines.append("\(statistic.type): \(figures.joined(separator: ", "))\(statistic.unit.map { " " + $0 } ?? "")")
        }
        if !events.isEmpty {
            lines.append("Events: " + events.map { "\($0.type) at \(TextFormat.localClock($0.date))" }.joined(separator: ", "))
        }
        guard let route else {
            lines.append("No route.")
            return lines.joined(separator: "\n")
        }
        var routeText = "Route: \(TextFormat.number(Double(route.pointCount))) points"
        if let km = route.distanceKm { routeText += ", \(TextFormat.number(km, decimals: 2)) km along the track" }
        if let gain = route.elevationGainM { routeText += ", +\(TextFormat.number(gain)) m" }
        lines.append(routeText)
        if !routePoints.isEmpty {
            lines.append("Points \(routeOffset)–\(routeOffset + routePoints.count - 1) (time, latitude,longitude, elevation):")
            lines.append(routePoints.map { point in
                "\(String(point.time.dropFirst(11).prefix(8))) \(String(format: "%.6f,%.6f", point.latitude, point.longitude))\(point.elevationM.map { " \(TextFormat.number($0)) m" } ?? "")"
            }.joined(separator: "\n"))
        }
        if let next = nextRouteOffset, let more = style.continuation(.routePoints, String(next)) {
            lines.append("More route points: \(more).")
        }
        return lines.joined(separator: "\n")
    }
}
