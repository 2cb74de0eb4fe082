import Foundation
import HealthAccess
import HealthAPI
import HealthBridgeTesting
import HealthModel
import Testing
@testable import HealthService

/// `sharedTypes()`: the types list of a paired client, refused while sharing is paused, when `types` (which the
/// paired API's `status` reads) still answers. Paused sharing also refuses the use cases that reach no single type:
/// every source, and a delete that matches nothing.
@Suite struct SharedTypesTests {
    static func owner() async throws -> HealthService {
        try await DemoWorld(days: 3, seed: 5, end: ISO8601.date("2024-06-30T15:30:00Z")!, zone: TimeZone(identifier: "UTC")!)
            .service().withAccess(try AccessStore.inMemory())
    }

    @Test func sharedTypesAreRefusedWhilePausedAndTypesStillAnswer() async throws {
        let owner = try await Self.owner()
        try await owner.updateGrants(GrantsUpdate(principal: Principal.allDevices.id, allowRead: ["stepCount", "bloodGlucose"]))
        let device = owner.acting(as: .device("phone"))
        let app = owner.acting(as: Principal(kind: .app, name: "org.example"))
        let listed: [String] = try await device.sharedTypes().types.map(\.type)
        let granted: [String] = try await device.types(includingGranted: true).types.map(\.type)
        #expect(listed == granted)
        #expect(listed == ["bloodGlucose", "stepCount"], "granted types without samples are listed")

        try await owner.setSharing(.paused)
        for service in [device, app] {
            for call in [{ _ = try await service.sharedTypes() },
                         { _ = try await service.sources(SourcesRequest()) },
                         { _ = try await service.delete(DeleteRequest(logId: "nothing-matches")) }] as [() async throws -> Void] {
                do {
                    try await call()
                    Issue.record("\(service.principal.id) was answered while sharing is paused")
                } catch let error as HealthError {
                    #expect(error.code == .sharingPaused)
                    #expect(error.hint == .ownerResumesSharing)
                }
            }
        }
        // What `status` reads still answers, and the owner is not a paired client.
        let whilePaused: [String] = try await device.types(includingGranted: true).types.map(\.type)
        #expect(whilePaused == ["bloodGlucose", "stepCount"])
        #expect(try await owner.sharedTypes().types.isEmpty == false)
        #expect(try await owner.sources(SourcesRequest()).sources.isEmpty == false)

        try await owner.setSharing(.active)
        #expect(try await device.sharedTypes().types.count == 2)
    }
}
