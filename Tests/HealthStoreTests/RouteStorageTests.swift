import Foundation
import GRDB
import Testing
import HealthModel

@testable import HealthStore

/// SQLite only: the packed column form, `BulkImportStore`'s route columns and the first store format are SQLite's.
/// What every store must do with routes (points paged, replaced, bit for bit) is in ``WorkoutTests``.
@Suite("Routes: packed columns, paging, stores of the first format")
struct RouteStorageTests {
    /// Points with every field, one without optional values, and awkward doubles.
    static var columns: RoutePointColumns {
        var columns = RoutePointColumns()
        columns.append(time: 1_582_567_245, latitude: 34.045088, longitude: -118.232524, elevation: 85.651855,
                       speed: 1.154731, course: 169.804688, horizontalAccuracy: 2.270945, verticalAccuracy: 1.579882)
        columns.append(time: 1_582_567_246.25, latitude: -0.0, longitude: 179.99999999999997)
        columns.append(time: 1_582_567_247, latitude: 1e-300, longitude: -180, elevation: -430.5, speed: 0,
                       course: 359.9, horizontalAccuracy: .greatestFiniteMagnitude, verticalAccuracy: 0.1 + 0.2)
        return columns
    }

    static func bits(_ values: [Double]) -> [UInt64] { values.map(\.bitPattern) }

    @Test("every column round-trips bit for bit through the store, absent values included")
    func roundTrip() async throws {
        let store = try SQLiteHealthStore.inMemory()
        let route = UUID()
        try await store.saveRoute(route, columns: Self.columns)
        let read = try await store.routeColumns(route, offset: 0, limit: .max)
        #expect(read == Self.columns)
        for key in RoutePointColumns.columns {
            #expect(Self.bits(read[keyPath: key]) == Self.bits(Self.columns[keyPath: key]))
        }
        let points = try await store.routePoints(route, offset: 0, limit: 10)
        #expect(points == Self.columns.points)
        #expect(points[1].elevation == nil && points[1].speed == nil && points[1].verticalAccuracy == nil)
        #expect(points[0].horizontalAccuracy == 2.270945)
        #expect(points[1].time == Date(timeIntervalSince1970: 1_582_567_246.25))
    }

    @Test("pages: offset and limit select points, past the end is empty, an unknown route is empty")
    func paging() async throws {
        let store = try SQLiteHealthStore.inMemory()
        let route = UUID()
        var columns = RoutePointColumns()
        for index in 0..<1_000 {
            columns.append(time: Double(index), latitude: Double(index) / 1_000, longitude: 2, elevation: Double(index))
        }
        try await store.saveRoute(route, columns: columns)
        let page = try await store.routeColumns(route, offset: 990, limit: 50)
        #expect(page.time == (990..<1_000).map(Double.init))
        #expect(page.elevation == (990..<1_000).map(Double.init))
        #expect(page.speed.count == 10 && page.speed.allSatisfy(\.isNaN))
        #expect(try await store.routePoints(route, offset: 5, limit: 2).map(\.latitude) == [0.005, 0.006])
        #expect(try await store.routeColumns(route, offset: 2_000, limit: 10).isEmpty)
        #expect(try await store.routeColumns(UUID(), offset: 0, limit: 10).isEmpty)
    }

    @Test("saving a route again replaces its points; the RoutePoint API stores the same thing")
    func replace() async throws {
        let store = try SQLiteHealthStore.inMemory()
        let route = UUID()
        try await store.saveRoute(route, columns: Self.columns)
        try await store.saveRoute(route, points: Array(Self.columns.points.prefix(1)))
        let read = try await store.routeColumns(route, offset: 0, limit: .max)
        #expect(read.count == 1)
        #expect(read[0] == Self.columns[0])
    }

    @Test("the packed form: header, only present columns, and garbage refused")
    func packedForm() throws {
        var sparse = RoutePointColumns()
        sparse.append(time: 1, latitude: 2, longitude: 3)
        let packed = sparse.packed()
        #expect(packed.count == 12 + 3 * 8)  // time, latitude, longitude only
        #expect(Array(packed.prefix(4)) == Array("HBR1".utf8))
        #expect(packed.withUnsafeBytes { RoutePointColumns(packed: $0) } == sparse)
        let full = Self.columns.packed()
        #expect(full.count == 12 + 8 * 3 * 8)
        #expect(full.withUnsafeBytes { RoutePointColumns(packed: $0, offset: 1, limit: 1) }?.latitude.map(\.bitPattern)
            == [(-0.0).bitPattern])
        #expect(Data("not a route".utf8).withUnsafeBytes { RoutePointColumns(packed: $0) } == nil)
        #expect(full.dropLast().withUnsafeBytes { RoutePointColumns(packed: $0) } == nil)
        #expect(RoutePointColumns().packed().withUnsafeBytes { RoutePointColumns(packed: $0) }?.isEmpty == true)
    }

    @Test("a store written with one row per point (format v1) opens, is packed, and reads the same points")
    func firstFormatStore() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            let route = UUID(), other = UUID()
            // The first format kept REAL columns, where SQLite stores -0.0 as 0: leave it out here.
            var legacy = Self.columns
            legacy.latitude[1] = 12.5
            do {
                let queue = try DatabaseQueue(path: url.path)
                try SQLiteHealthStore.migrator.migrate(queue, upTo: "v1")
                try await queue.write { [legacy] db in
                    for (index, point) in legacy.points.enumerated().reversed() {
                        try db.execute(sql: """
                            INSERT INTO route_points (route, idx, time, lat, lon, ele, speed, course, h_acc, v_acc)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """, arguments: [route.blob, index, point.time.timeIntervalSince1970, point.latitude,
                                             point.longitude, point.elevation, point.speed, point.course,
                                             point.horizontalAccuracy, point.verticalAccuracy])
                    }
                    try db.execute(sql: "INSERT INTO route_points (route, idx, time, lat, lon) VALUES (?, 0, 5, 6, 7)",
                                   arguments: [other.blob])
                }
                try queue.close()
            }
            let store = try SQLiteHealthStore(location: .file(url))
            #expect(try await store.routeColumns(route, offset: 0, limit: .max) == legacy)
            #expect(try await store.routePoints(other, offset: 0, limit: 5).map(\.latitude) == [6])
        }
    }

    @Test("stores opened at the same moment on a new file all open (migrations raced by another process)")
    func concurrentCreation() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let store = try SQLiteHealthStore(location: .file(url))
                        return try await store.routeColumns(UUID(), offset: 0, limit: 1).isEmpty
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(opened == 6)
        }
    }
}
