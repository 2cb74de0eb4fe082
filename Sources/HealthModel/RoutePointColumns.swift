import Foundation

/// The points of a workout route as columns: one array of `Double` per field, in point order.
///
/// Times are seconds since 1970; an optional value a point does not have (elevation, speed, course, accuracies) is
/// NaN. This is how an import hands routes to a store and how route summaries read them: no object per point, and a
/// store may keep the columns packed as they are (``packed()``, ``init(packed:offset:limit:)``).
///
/// ```swift
/// var columns = RoutePointColumns()
/// columns.append(time: 1_700_000_000, latitude: 48.85, longitude: 2.35, elevation: 35)
/// try await store.saveRoute(routeID, columns: columns)
/// let firstHundred = try await store.routeColumns(routeID, offset: 0, limit: 100)
/// ```
public struct RoutePointColumns: Sendable, Equatable {
    public var time: [Double] = []
    public var latitude: [Double] = []
    public var longitude: [Double] = []
    public var elevation: [Double] = []
    public var speed: [Double] = []
    public var course: [Double] = []
    public var horizontalAccuracy: [Double] = []
    public var verticalAccuracy: [Double] = []

    public var count: Int { time.count }
    public var isEmpty: Bool { time.isEmpty }

    public init() {}

    public init(_ points: [RoutePoint]) {
        reserveCapacity(points.count)
        for point in points {
            append(time: point.time.timeIntervalSince1970, latitude: point.latitude, longitude: point.longitude,
                   elevation: point.elevation ?? .nan, speed: point.speed ?? .nan, course: point.course ?? .nan,
                   horizontalAccuracy: point.horizontalAccuracy ?? .nan, verticalAccuracy: point.verticalAccuracy ?? .nan)
        }
    }

    public mutating func reserveCapacity(_ capacity: Int) {
        for key in Self.columns { self[keyPath: key].reserveCapacity(capacity) }
    }

    @inlinable
    public mutating func append(time: Double, latitude: Double, longitude: Double, elevation: Double = .nan,
                                speed: Double = .nan, course: Double = .nan, horizontalAccuracy: Double = .nan,
                                verticalAccuracy: Double = .nan) {
        self.time.append(time)
        self.latitude.append(latitude)
        self.longitude.append(longitude)
        self.elevation.append(elevation)
        self.speed.append(speed)
        self.course.append(course)
        self.horizontalAccuracy.append(horizontalAccuracy)
        self.verticalAccuracy.append(verticalAccuracy)
    }

    /// The point at `index`, NaN values as nil.
    public subscript(index: Int) -> RoutePoint {
        func optional(_ value: Double) -> Double? { value.isNaN ? nil : value }
        return RoutePoint(time: Date(timeIntervalSince1970: time[index]), latitude: latitude[index],
                          longitude: longitude[index], elevation: optional(elevation[index]),
                          speed: optional(speed[index]), course: optional(course[index]),
                          horizontalAccuracy: optional(horizontalAccuracy[index]),
                          verticalAccuracy: optional(verticalAccuracy[index]))
    }

    /// The points as values (for an API page; summaries read the columns).
    public var points: [RoutePoint] { (0..<count).map { self[$0] } }

    /// Equal when every column holds the same bit patterns (two absent values are equal).
    public static func == (a: RoutePointColumns, b: RoutePointColumns) -> Bool {
        Self.columns.allSatisfy { key in
            a[keyPath: key].elementsEqual(b[keyPath: key]) { $0.bitPattern == $1.bitPattern }
        }
    }

    /// The columns in storage order.
    package static var columns: [WritableKeyPath<RoutePointColumns, [Double]>] {
        [\.time, \.latitude, \.longitude, \.elevation, \.speed, \.course, \.horizontalAccuracy, \.verticalAccuracy]
    }

    // MARK: Packed form

    /// `HBR1`: the packed form's magic number.
    static let magic: UInt32 = 0x3152_4248
    static let headerSize = 12

    /// The columns packed little-endian: a 12-byte header (magic `HBR1`, point count, a bit per column present), then
    /// each present column as `count` IEEE-754 doubles. A column with no value at all (every element NaN) is left out.
    public func packed() -> Data {
        var mask: UInt32 = 0
        for (bit, key) in Self.columns.enumerated() where bit < 3 || self[keyPath: key].contains(where: { !$0.isNaN }) {
            mask |= 1 << UInt32(bit)
        }
        let present = mask.nonzeroBitCount
        var data = Data(count: Self.headerSize + present * count * 8)
        data.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt32(truncatingIfNeeded: count).littleEndian, toByteOffset: 4, as: UInt32.self)
            raw.storeBytes(of: mask.littleEndian, toByteOffset: 8, as: UInt32.self)
            var offset = Self.headerSize
            for (bit, key) in Self.columns.enumerated() where mask & (1 << UInt32(bit)) != 0 {
                self[keyPath: key].withUnsafeBytes { column in
                    let target = UnsafeMutableRawBufferPointer(rebasing: raw[offset..<(offset + column.count)])
                    #if _endian(little)
                    target.copyMemory(from: column)
                    #else
                    for (index, value) in column.bindMemory(to: Double.self).enumerated() {
                        target.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: index * 8, as: UInt64.self)
                    }
                    #endif
                }
                offset += count * 8
            }
        }
        return data
    }

    /// The points `[offset, offset + limit)` of a packed route; nil when `packed` is not a packed route.
    public init?(packed: UnsafeRawBufferPointer, offset: Int = 0, limit: Int = .max) {
        guard packed.count >= Self.headerSize,
              UInt32(littleEndian: packed.loadUnaligned(fromByteOffset: 0, as: UInt32.self)) == Self.magic else { return nil }
        let total = Int(UInt32(littleEndian: packed.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        let mask = UInt32(littleEndian: packed.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        guard mask & 0b111 == 0b111, mask >> Self.columns.count == 0,
              packed.count == Self.headerSize + mask.nonzeroBitCount * total * 8 else { return nil }
        let first = min(max(0, offset), total)
        let n = min(total - first, max(0, limit))
        var columnOffset = Self.headerSize
        for (bit, key) in Self.columns.enumerated() {
            guard mask & (1 << UInt32(bit)) != 0 else {
                self[keyPath: key] = Array(repeating: .nan, count: n)
                continue
            }
            let start = columnOffset + first * 8
            self[keyPath: key] = Array(unsafeUninitializedCapacity: n) { buffer, initialized in
                let target = UnsafeMutableRawBufferPointer(buffer)
                #if _endian(little)
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: packed[start..<(start + n * 8)]))
                #else
                for index in 0..<n {
                    let bits = UInt64(littleEndian: packed.loadUnaligned(fromByteOffset: start + index * 8, as: UInt64.self))
                    buffer[index] = Double(bitPattern: bits)
                }
                #endif
                initialized = n
            }
            columnOffset += total * 8
        }
    }
}
