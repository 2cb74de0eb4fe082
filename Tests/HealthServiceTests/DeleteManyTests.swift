import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// Several objects deleted in one transaction (HealthKit's `delete([HKObject])`): each checked as one uuid is
/// (only what the principal wrote, unknown ones skipped, malformed text refused), one commit.
@Suite struct DeleteManyTests {
    static let app = Principal(kind: .app, name: "com.example.diet")

    static func services() async throws -> (owner: HealthService, app: HealthService) {
        let owner = try await WriteTests.owner()
        try await owner.updateGrants(GrantsUpdate(principal: app.id, allowRead: ["dietaryWater", "bodyMass"],
                                                  allowWrite: ["dietaryWater", "bodyMass"]))
        return (owner, owner.acting(as: app))
    }

    @Test func uuidsAreDeletedInOneCommitAndUnknownOnesAreSkipped() async throws {
        let (owner, app) = try await Self.services()
        let water = try await app.save((0..<3).map {
            SampleInput(type: "dietaryWater", value: 250, unit: "mL", start: "2024-06-30T1\($0):00:00Z")
        })
        let weight = try await app.logWeight(72, at: "2024-06-30T07:00:00Z")
        let before = try await owner.changesAnchor()
        let unknown = UUID().uuidString
        let uuids = water.objects.prefix(2).map(\.uuid) + weight.objects.map(\.uuid) + [unknown, water.objects[0].uuid]
        let result = try await app.delete(DeleteRequest(uuids: uuids))
        #expect(result.deleted == 3)
        #expect(result.uuids == water.objects.prefix(2).map(\.uuid) + weight.objects.map(\.uuid), "unknown skipped, no repeats")
        #expect(Int64(result.anchor)! > Int64(before.anchor)!)
        let feed = try await owner.changes(ChangesRequest(anchor: before.anchor))
        #expect(feed.deleted.count == 3 && feed.anchor == result.anchor, "one commit, three tombstones")
        #expect(try await app.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30")).samples.map(\.uuid)
            == [water.objects[2].uuid])
        #expect(try await app.delete(DeleteRequest(uuids: [unknown])).deleted == 0, "nothing to delete is no error")
    }

    @Test func anotherWritersObjectRefusesTheWholeDelete() async throws {
        let (owner, app) = try await Self.services()
        let mine = try await app.logWater(250, at: "2024-06-30T10:00:00Z")
        let theirs = try await owner.logWater(300, at: "2024-06-30T11:00:00Z")
        do {
            _ = try await app.delete(DeleteRequest(uuids: [mine.objects[0].uuid, theirs.objects[0].uuid]))
            Issue.record("deleted what another principal wrote")
        } catch let error as HealthError {
            #expect(error.code == .notAuthorized)
        }
        #expect(try await owner.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30")).count == 2,
                "nothing deleted")
        // The owner deletes anything.
        #expect(try await owner.delete(DeleteRequest(uuids: [mine.objects[0].uuid, theirs.objects[0].uuid])).deleted == 2)
    }

    @Test func malformedRequestsAreInvalidArguments() async throws {
        let (_, app) = try await Self.services()
        let mine = try await app.logWater(250, at: "2024-06-30T10:00:00Z")
        let uuid = mine.objects[0].uuid
        let requests: [(DeleteRequest, String)] = [
            (DeleteRequest(uuids: []), "uuids must hold 1 to 1000"),
            (DeleteRequest(uuids: Array(repeating: uuid, count: 1_001)), "uuids must hold 1 to 1000"),
            (DeleteRequest(uuids: [uuid, "not-a-uuid"]), "is not a UUID"),
            (DeleteRequest(uuid: uuid, uuids: [uuid]), "exactly one"),
            (DeleteRequest(uuids: [uuid], logId: "x"), "exactly one"),
            (DeleteRequest(), "exactly one"),
        ]
        for (request, message) in requests {
            do {
                _ = try await app.delete(request)
                Issue.record("accepted \(message)")
            } catch let error as HealthError {
                #expect(error.code == .invalidArgument)
                #expect(error.message.replacingOccurrences(of: ",", with: "").contains(message), "\(error.message)")
            }
        }
        #expect(try await app.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30")).count == 1,
                "a malformed uuid in the list deletes nothing")
        #expect(try await app.delete(DeleteRequest(uuids: Array(repeating: uuid, count: 1_000))).deleted == 1)
    }

    @Test func theRequestCarriesUUIDsAsJSON() throws {
        let json = #"{"uuids":["A","B"]}"#
        let request = try JSONDecoder().decode(DeleteRequest.self, from: Data(json.utf8))
        #expect(request.uuids == ["A", "B"] && request.uuid == nil)
        #expect(DeleteRequest.jsonSchema.json["properties"]?["uuids"] != nil)
    }
}
