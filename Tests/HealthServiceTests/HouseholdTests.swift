import Foundation
import Testing
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthModel
import HealthService
import HealthStore
import HealthSupport

/// People of a household: each a data directory of their own, nothing crossing between them.
@Suite struct HouseholdTests {
    @Test func addListAndRemovePeople() async throws {
        try await TemporaryHome.with("household") { temp in
            let household = Household(home: HealthBridgeHome(directory: temp.url))
            #expect(try household.people().map(\.id) == ["owner"])
            let alex = try household.add(name: "Álex  Martin!")
            #expect(alex.id == "alex-martin" && alex.name == "Álex  Martin!")
            try household.add(name: "Sam", id: "sam2")
            #expect(try household.people().map(\.id) == ["owner", "alex-martin", "sam2"])
            let home = try household.home(of: "alex-martin")
            #expect(home.directory.path.hasSuffix("/people/alex-martin"))
            #expect(try permissions(home.directory) == 0o700)
            #expect(try household.home(of: "owner") == household.home)

            #expect(throws: HealthError.self) { try household.add(name: "Alex Martin") }        // same id
            #expect(throws: HealthError.self) { try household.add(name: "Owner") }              // reserved
            #expect(throws: HealthError.self) { try household.add(name: "   ") }
            #expect(throws: HealthError.self) { try household.add(name: "x", id: "../etc") }
            #expect(throws: HealthError.self) { try household.home(of: "nobody") }
            #expect(throws: HealthError.self) { try household.remove("owner") }

            try household.remove("sam2")
            #expect(try household.people().map(\.id) == ["owner", "alex-martin"])
            #expect(!FileManager.default.fileExists(atPath: temp.url.appendingPathComponent("people/sam2").path))
        }
    }

    @Test func nothingCrossesPeople() async throws {
        try await TemporaryHome.with("household") { temp in
            let household = Household(home: HealthBridgeHome(directory: temp.url))
            try household.add(name: "Alex")
            func service(_ person: String) async throws -> HealthService {
                let home = try household.home(of: person)
                return try await HealthService.open(store: try SQLiteHealthStore(location: .file(home.storeURL)),
                                                    access: try AccessStore.open(home: home.directory))
            }
            let owner = try await service("owner")
            let alex = try await service("alex")
            _ = try await alex.logWater(330, unit: "mL", logId: "glass-1")
            #expect(try await alex.latest(LatestRequest(type: "dietaryWater")).found)
            #expect(try await !owner.latest(LatestRequest(type: "dietaryWater")).found, "the owner's store holds none of Alex's data")

            // A device paired for Alex is unknown to the owner's access state.
            let code = try await alex.issuePairingCode()
            let elsewhere = try await owner.pair(code: code.code, clientName: "phone")
            if case .paired = elsewhere { Issue.record("Alex's pairing code paired a device to the owner") }
            let there = try await alex.pair(code: code.code, clientName: "phone")
            guard case .paired = there else { Issue.record("the code did not pair for Alex: \(there)"); return }
        }
    }
}

private func permissions(_ url: URL) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
