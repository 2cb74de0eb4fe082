import Foundation
import HealthModel
import HealthStore
import HealthXML

/// Reads the track points of a GPX 1.1 route file written by the Health app into columns, with the byte-level
/// ``GPXScanner``: no string, no object per point.
///
/// ```swift
/// let (columns, scan) = GPXReader.columns(data)
/// if scan.skipped > 0 { print(scan.firstProblem ?? "") }
/// ```
enum GPXReader {
    static func columns(_ data: Data) -> (RoutePointColumns, GPXScanResult) {
        var columns = RoutePointColumns()
        // About 230 bytes per point as the iPhone writes them: reserve once.
        columns.reserveCapacity(data.count / 200 + 16)
        let result = data.withUnsafeBytes { bytes in
            GPXScanner.scan(bytes) { point in
                columns.append(time: point.time, latitude: point.latitude, longitude: point.longitude,
                               elevation: point.elevation, speed: point.speed, course: point.course,
                               horizontalAccuracy: point.horizontalAccuracy, verticalAccuracy: point.verticalAccuracy)
            }
        }
        return (columns, result)
    }
}
