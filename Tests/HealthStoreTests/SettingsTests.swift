import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct SettingsTests {
    @Test(arguments: TestStores.kinds) func setGetOverwriteDelete(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
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
    }

    /// SQLite: a file store reopened; PostgreSQL: a new store on the same schema.
    @Test(arguments: TestStores.kinds)
    func settingsPersistAcrossReopening(kind: TestStoreKind) async throws {
        try await TestStores.withPlace(kind) { place in
            do {
                let store = try await place.open()
                try await store.setSetting("lastImport", "2024-05-01")
            }
            #expect(try await place.open().setting("lastImport") == "2024-05-01")
        }
    }
}
