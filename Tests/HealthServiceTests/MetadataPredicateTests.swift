import Foundation
import HealthAPI
import HealthModel
import HealthStore
import Testing
@testable import HealthService

/// HealthKit's `predicateForObjects(withMetadataKey:allowedValues:)` on sample queries: an app's own metadata keys
/// are stored with what it writes, returned with the samples and matched by the predicate, across pages.
@Suite struct MetadataPredicateTests {
    static let app = Principal(kind: .app, name: "com.example.diet")

    static func appService() async throws -> (owner: HealthService, app: HealthService) {
        let owner = try await WriteTests.owner()
        try await owner.updateGrants(GrantsUpdate(principal: app.id, allowRead: ["dietaryProtein", "bodyMass"],
                                                  allowWrite: ["dietaryProtein", "bodyMass"]))
        return (owner, owner.acting(as: app))
    }

    @Test func appMetadataIsStoredReturnedAndQueryable() async throws {
        let (_, app) = try await Self.appService()
        var inputs: [SampleInput] = []
        for index in 0..<5 {
            inputs.append(SampleInput(type: "dietaryProtein", value: Double(10 + index), unit: "g",
                                      start: "2024-06-30T0\(index + 1):00:00Z",
                                      metadata: ["DietAppLogId": "entry-\(index % 2)", "Source": "DietApp"]))
        }
        inputs.append(SampleInput(type: "dietaryProtein", value: 99, unit: "g", start: "2024-06-30T09:00:00Z"))
        _ = try await app.save(inputs)

        let all = try await app.samples(SamplesRequest(type: "dietaryProtein", start: "2024-06-30"))
        #expect(all.count == 6)
        let tagged = try #require(all.samples.first { $0.value == 10 })
        #expect(tagged.metadata?["DietAppLogId"] == "entry-0")
        #expect(tagged.metadata?["Source"] == "DietApp")

        let zero = try await app.samples(SamplesRequest(type: "dietaryProtein", start: "2024-06-30", ascending: true,
                                                        metadataKey: "DietAppLogId", metadataValues: ["entry-0"]))
        #expect(zero.samples.map(\.value) == [10, 12, 14])
        let both = try await app.samples(SamplesRequest(type: "dietaryProtein", start: "2024-06-30",
                                                        metadataKey: "DietAppLogId", metadataValues: ["entry-0", "entry-1"]))
        #expect(both.count == 5)
        let source = try await app.samples(SamplesRequest(type: "dietaryProtein", start: "2024-06-30",
                                                          metadataKey: "Source", metadataValues: ["OtherApp"]))
        #expect(source.samples.isEmpty)

        // The cursor keeps the predicate: page by page, still only entry-0.
        var page = try await app.samples(SamplesRequest(type: "dietaryProtein", start: "2024-06-30", limit: 1,
                                                        ascending: true, metadataKey: "DietAppLogId",
                                                        metadataValues: ["entry-0"]))
        var values = page.samples.compactMap(\.value)
        while let next = page.nextCursor {
            page = try await app.samples(SamplesRequest(cursor: next))
            values += page.samples.compactMap(\.value)
        }
        #expect(values == [10, 12, 14])
    }

    @Test func aTypeTheAppMayNotReadStaysAnEmptyPageWithThePredicate() async throws {
        let (owner, app) = try await Self.appService()
        _ = try await owner.save([SampleInput(type: "dietaryWater", value: 250, unit: "mL", start: "2024-06-30T10:00:00Z",
                                              metadata: ["DietAppLogId": "x"])])
        let page = try await app.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30",
                                                        metadataKey: "DietAppLogId", metadataValues: ["x"]))
        #expect(page.samples.isEmpty)
        #expect(try await owner.samples(SamplesRequest(type: "dietaryWater", start: "2024-06-30",
                                                       metadataKey: "DietAppLogId", metadataValues: ["x"])).count == 1)
    }

    /// HealthKit's rule: an app without a read grant still finds what it wrote itself (the seed deletes a meal by
    /// querying its nutrients by `DietAppLogId`, a type it only writes), and nothing anyone else wrote.
    @Test func withoutAReadGrantAnAppFindsOnlyWhatItWrote() async throws {
        let owner = try await WriteTests.owner()
        try await owner.updateGrants(GrantsUpdate(principal: Self.app.id, allowWrite: ["dietaryFiber"]))
        let app = owner.acting(as: Self.app)
        _ = try await owner.save([SampleInput(type: "dietaryFiber", value: 3, unit: "g", start: "2024-06-30T08:00:00Z",
                                              metadata: ["DietAppLogId": "m2"])])
        let mine = try await app.save([SampleInput(type: "dietaryFiber", value: 5, unit: "g", start: "2024-06-30T09:00:00Z",
                                                   metadata: ["DietAppLogId": "m2"])])
        let found = try await app.samples(SamplesRequest(type: "dietaryFiber", start: "2024-06-30", metadataKey: "DietAppLogId",
                                                         metadataValues: ["m2"]))
        #expect(found.samples.map(\.uuid) == mine.objects.map(\.uuid))
        #expect(try await app.delete(DeleteRequest(uuids: found.samples.map(\.uuid))).deleted == 1)
        #expect(try await owner.samples(SamplesRequest(type: "dietaryFiber", start: "2024-06-30")).samples.map(\.value) == [3])
    }

    @Test(arguments: [
        SamplesRequest(type: "bodyMass", metadataKey: "DietAppLogId"),
        SamplesRequest(type: "bodyMass", metadataValues: ["a"]),
        SamplesRequest(type: "bodyMass", metadataKey: "", metadataValues: ["a"]),
        SamplesRequest(type: "bodyMass", metadataKey: String(repeating: "k", count: 129), metadataValues: ["a"]),
        SamplesRequest(type: "bodyMass", metadataKey: "a\"b", metadataValues: ["a"]),
        SamplesRequest(type: "bodyMass", metadataKey: "DietAppLogId", metadataValues: []),
        SamplesRequest(type: "bodyMass", metadataKey: "DietAppLogId", metadataValues: Array(repeating: "v", count: 101)),
        SamplesRequest(type: "bodyMass", metadataKey: "DietAppLogId", metadataValues: [String(repeating: "v", count: 4_097)]),
    ])
    func aMalformedPredicateIsAnInvalidArgument(_ request: SamplesRequest) async throws {
        let (_, app) = try await Self.appService()
        do {
            _ = try await app.samples(request)
            Issue.record("accepted \(request.metadataKey?.prefix(20) ?? "nil") with \(request.metadataValues?.count ?? -1) values")
        } catch let error as HealthError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("metadata_"), "\(error.message)")
        }
    }

    @Test func theLimitsThemselvesAreAccepted() async throws {
        let (_, app) = try await Self.appService()
        let page = try await app.samples(SamplesRequest(
            type: "bodyMass", metadataKey: String(repeating: "k", count: 128),
            metadataValues: Array(repeating: String(repeating: "v", count: 4_096), count: 100)))
        #expect(page.samples.isEmpty)
    }

    @Test func theRequestCarriesThePredicateAsSnakeCaseJSON() throws {
        let request = SamplesRequest(type: "bodyMass", metadataKey: "DietAppLogId", metadataValues: ["a", "b"])
        let json = String(decoding: try JSONEncoder.wire.encode(request), as: UTF8.self)
        #expect(json.contains(#""metadata_key":"DietAppLogId""#) && json.contains(#""metadata_values":["a","b"]"#))
        #expect(try JSONDecoder().decode(SamplesRequest.self, from: Data(json.utf8)) == request)
        let properties = SamplesRequest.jsonSchema.json["properties"]?.objectValue ?? [:]
        #expect(properties["metadata_key"] != nil && properties["metadata_values"] != nil)
    }
}
