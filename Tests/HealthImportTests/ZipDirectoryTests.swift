import Foundation
import HealthModel
import HealthStore
import Testing
import ZIPFoundation
@testable import HealthImport

/// The attachment reader's zip path (issue 16): every file reads exactly as ZIPFoundation reads it, ZIP64 archives
/// included; damaged data is reported per file; the bomb limits hold.
@Suite("Zip directory")
struct ZipDirectoryTests {
    /// Every file of `url` through ZIPFoundation, by path.
    static func zipFoundationFiles(_ url: URL) throws -> [String: Data] {
        let archive = try Archive(url: url, accessMode: .read)
        var files: [String: Data] = [:]
        for entry in archive where entry.type == .file {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            files[entry.path] = data
        }
        return files
    }

    static func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hb-zip-\(UUID().uuidString).zip")
        try data.write(to: url)
        return url
    }

    @Test func everyFileOfTheRealExportReadsAsZIPFoundationReadsIt() throws {
        guard RealFixtures.exists(RealFixtures.routeZip) else { return }
        let url = RealFixtures.url(RealFixtures.routeZip)
        let expected = try Self.zipFoundationFiles(url)
        let directory = try #require(ZipDirectory(url: url))
        #expect(expected.count >= 4)
        for (path, data) in expected {
            let entry = try #require(directory[path], "\(path) is missing")
            #expect(try directory.read(entry, limits: ArchiveLimits()) == data, "\(path)")
        }
    }

    @Test func storedAndDeflatedEntriesOfAWrittenZip() throws {
        do {
            let dir = try TempDir()
            var export = ExportFixture()
            export.add(X.steps(120, start: "2024-05-01 10:00:00 +0200", end: "2024-05-01 10:05:00 +0200"))
            export.files["workout-routes/route_2024-05-01_7.30am.gpx"] = Data(String(repeating: "<trkpt/>", count: 5_000).utf8)
            export.files["electrocardiograms/ecg_2024-05-01.csv"] = Data("Name,Alex\n1.0\n2.0\n".utf8)
            let url = try export.writeZip(in: dir.url, extraEntries: [("apple_health_export/empty.txt", Data())])
            let expected = try Self.zipFoundationFiles(url)
            let directory = try #require(ZipDirectory(url: url))
            for (path, data) in expected {
                let entry = try #require(directory[path], "\(path) is missing")
                #expect(try directory.read(entry, limits: ArchiveLimits()) == data, "\(path)")
            }
            let stored = try #require(directory["__MACOSX/._apple_health_export"])
            #expect(stored.method == 0, "the AppleDouble junk is stored, not deflated")
        }
    }

    /// A ZIP64 archive (sizes and offset in the extra field, the end record in the ZIP64 record), as large exports
    /// are written: built byte by byte and checked against Python's zipfile when it was made.
    @Test func zip64SizesAndOffsetsAreRead() throws {
        let url = try Self.temporaryFile(try #require(Data(base64Encoded: Self.zip64)))
        defer { try? FileManager.default.removeItem(at: url) }
        let directory = try #require(ZipDirectory(url: url))
        let entry = try #require(directory["apple_health_export/workout-routes/a.gpx"])
        #expect(entry.uncompressedSize == 491 && entry.compressedSize == 38 && entry.localHeaderOffset == 0)
        let text = String(decoding: try directory.read(entry, limits: ArchiveLimits()), as: UTF8.self)
        #expect(text == "<gpx>" + String(repeating: "<trkpt lat=\"1\" lon=\"2\"/>", count: 20) + "</gpx>")
    }

    @Test func damagedDataIsAnErrorOfThatFileAndTheImportGoesOn() async throws {
        do {
            let dir = try TempDir()
            var export = ExportFixture()
            let good = "workout-routes/route_2024-05-01_7.30am.gpx", bad = "workout-routes/route_2024-05-02_7.30am.gpx"
            export.add(RouteExport.run(day: 1, path: good))
            export.add(RouteExport.run(day: 2, path: bad))
            export.files[good] = RouteExport.gpx(points: 300)
            export.files[bad] = RouteExport.gpx(points: 300)
            let url = try export.writeZip(in: dir.url)
            // Overwrite the middle of the second route's compressed data.
            let directory = try #require(ZipDirectory(url: url))
            let entry = try #require(directory["apple_health_export/" + bad])
            var bytes = try Data(contentsOf: url)
            let middle = Int(entry.localHeaderOffset) + 30 + ("apple_health_export/" + bad).utf8.count + 40
            for index in middle..<(middle + 64) { bytes[index] = 0xA5 }
            try bytes.write(to: url)
            #expect(throws: ZipDirectory.Damaged.self) {
                try ZipDirectory(url: url).map { try $0.read(entry, limits: ArchiveLimits()) }
            }

            let (store, report) = try await importFresh(url)
            #expect(report.skipped.contains { $0.element == "GPX file" && $0.reason.hasPrefix("/" + bad) },
                    "\(report.skipped)")
            #expect(report.workoutsInserted == 2)
            var counts: [Int] = []
            for workout in try await store.workouts(WorkoutQuery(ascending: true)) {
                let route = try #require(workout.routes.first)
                counts.append(try await store.routeColumns(route.uuid, offset: 0, limit: .max).count)
            }
            #expect(counts == [300, 0], "the good route whole, the damaged one without points")
        }
    }

    @Test func aBombIsRefusedBeforeItIsInflated() async throws {
        do {
            let dir = try TempDir()
            let url = dir.url.appendingPathComponent("bomb.zip")
            let archive = try Archive(url: url, accessMode: .create)
            try ExportFixture.add(archive, "apple_health_export/workout-routes/bomb.gpx", Data(count: 20 << 20), compressed: true)
            let directory = try #require(ZipDirectory(url: url))
            let entry = try #require(directory["apple_health_export/workout-routes/bomb.gpx"])
            await expectHealthError(.importRejected) { _ = try directory.read(entry, limits: ArchiveLimits()) }
        }
    }

    @Test func notAZipHasNoDirectory() throws {
        let url = try Self.temporaryFile(Data("<HealthData/>".utf8))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(ZipDirectory(url: url) == nil)
        #expect(ZipDirectory(url: URL(fileURLWithPath: "/nonexistent/export.zip")) == nil)
    }

    static let zip64 = """
        UEsDBC0AAAAIAAAAIQC2JGsa//////////8oABQAYXBwbGVfaGVhbHRoX2V4cG9ydC93b3Jrb3V0LXJvdXRlcy9hLmdweAEAEADrAQAAAAAAACYA\
        AAAAAAAAs0kvqLCzKSnKLihRyEkssVUyVFLIyc+zVTJS0h8VHy7i+qBYBgBQSwECLQAtAAAACAAAACEAtiRrGv//////////KAAcAAAAAAAAAAAA\
        AAD/////YXBwbGVfaGVhbHRoX2V4cG9ydC93b3Jrb3V0LXJvdXRlcy9hLmdweAEAGADrAQAAAAAAACYAAAAAAAAAAAAAAAAAAABQSwYGLAAAAAAA\
        AAAtAC0AAAAAAAAAAAABAAAAAAAAAAEAAAAAAAAAcgAAAAAAAACAAAAAAAAAAFBLBgcAAAAA8gAAAAAAAAABAAAAUEsFBgAAAAD/////////////\
        //8AAA==
        """
}
