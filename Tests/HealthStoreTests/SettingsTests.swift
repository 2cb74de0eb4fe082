import Foundation
import Testing
import HealthModel
import HealthStore

@Suite struct SettingsTests {
    @Test func setGetOverwriteDelete() async throws {
        let store = try SQLiteHealthStore.inMemory()
        #expect(try await store.setting("units.distance") == nil)
        try await store.setSetting("units.distance", "km")
        try await store.setSetting("timeZone", "Europe/Paris")
        #expect(try await store.setting("units.distance") == "km")
        try await store.setSetting("units.distance", "mi")
        #expect(try await store.setting("units.distance") == "mi")
        try await store.setSetting("units.distance", nil)
        #expect(try await store.setting("units.distance") == nil)
        #expect(try await store.setting("timeZone") == "Europe/Paris")
        try await store.setSetting("never-set", nil)  // deleting a missing key is fine
        try await store.setSetting("empty", "")
        #expect(try await store.setting("empty") == "")
        try await store.setSetting("unicode", "Zoë’s “watch” 🏃")
        #expect(try await store.setting("unicode") == "Zoë’s “watch” 🏃")
    }

    @Test func settingsPersistInAFileStore() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("health.sqlite")
            do {
                let store = try SQLiteHealthStore(location: .file(url))
                try await store.setSetting("lastImport", "2024-05-01")
            }
            #expect(try await SQLiteHealthStore(location: .file(url)).setting("lastImport") == "2024-05-01")
        }
    }
}
