import Foundation
import Testing
import HealthBridgeTesting
import HealthModel
import HealthStore

@Suite struct SaveTests {
    @Test(arguments: TestStores.kinds) func savingTheSameSampleTwiceStoresItOnce(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            let sample = qty(0, 600, 850)
            let first = try await store.save([sample])
            #expect(first == SaveResult(inserted: 1, replaced: 0, ignored: 0))
            let anchorAfterFirst = try await store.currentAnchor()

            let second = try await store.save([sample])
            #expect(second == SaveResult(inserted: 0, replaced: 0, ignored: 1))
            // An ignored save is not a change.
            #expect(try await store.currentAnchor() == anchorAfterFirst)

            let stored = try await all(store)
            #expect(stored.count == 1)
            #expect(stored.first?.uuid == sample.uuid)
            #expect(stored.first?.value == .quantity(850, unit: "count"))

            // A rebuilt copy (no explicit uuid) is recognised as the same sample, even inside one batch.
            let again = try await store.save([qty(0, 600, 850), qty(0, 600, 850), qty(600, 1200, 10)])
            #expect(again == SaveResult(inserted: 1, replaced: 0, ignored: 2))
            #expect(try await all(store).count == 2)
        }
    }

    @Test func naturalUUIDsFollowTheNaturalKey() {
        let a = qty(0, 600, 850)
        let b = qty(0, 600, 850)
        #expect(a.uuid == b.uuid)
        #expect(a.uuid == HealthSample.naturalUUID(type: "stepCount", sourceKey: phoneSource.key, start: at(0),
                                                    end: at(600), value: .quantity(850, unit: "count")))
        // Any part of the natural key changes the UUID.
        #expect(qty(0, 600, 851).uuid != a.uuid)
        #expect(qty(0, 600, 850, unit: "km").uuid != a.uuid)
        #expect(qty(1, 600, 850).uuid != a.uuid)
        #expect(qty(0, 601, 850).uuid != a.uuid)
        #expect(qty("flightsClimbed", 0, 600, 850).uuid != a.uuid)
        #expect(qty(0, 600, 850, source: watchSource).uuid != a.uuid)
        // Metadata and the source version are not part of it.
        var versioned = phoneSource
        versioned.version = "17.4"
        #expect(qty(0, 600, 850, source: versioned, metadata: ["k": "v"]).uuid == a.uuid)
        // An explicit UUID wins.
        let explicit = UUID()
        #expect(HealthSample(uuid: explicit, type: "stepCount", start: at(0), end: at(600),
                             value: .quantity(850, unit: "count"), source: phoneSource).uuid == explicit)
    }

    @Test(arguments: TestStores.kinds) func sampleFieldsRoundTrip(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            var source = watchSource
            source.version = "10.1"
            let quantity = HealthSample(
                type: "heartRate", start: at(10), end: at(10), value: .quantity(62.5, unit: "count/min"), source: source,
                creationDate: at(20), metadata: ["HKMetadataKeyHeartRateMotionContext": "1", "quote\"key": "line\nbreak"],
                utcOffset: 7200, timeZone: "Europe/Paris")
            let category = HealthSample(type: "sleepAnalysis", start: at(100), end: at(3700), value: .category(3),
                                        source: phoneSource)
            let none = HealthSample(type: "mindfulSession", start: at(200), end: at(500), value: .none, source: appSource)
            #expect(try await store.save([quantity, category, none]).inserted == 3)

            let readQuantity = try #require(try await all(store, "heartRate").first)
            #expect(readQuantity == quantity)
            #expect(readQuantity.source.version == "10.1")
            #expect(readQuantity.metadata["quote\"key"] == "line\nbreak")
            #expect(readQuantity.utcOffset == 7200)
            #expect(readQuantity.timeZone == "Europe/Paris")
            #expect(readQuantity.creationDate == at(20))
            #expect(try await all(store, "sleepAnalysis") == [category])
            #expect(try await all(store, "mindfulSession").first?.value == SampleValue.none)
        }
    }

    @Test(arguments: TestStores.kinds)
    func aSampleEndingBeforeItStartsRejectsTheWholeBatch(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store in
            _ = try await store.save([qty(0, 60, 1)])
            let anchor = try await store.currentAnchor()
            #expect(anchor == 1)

            let good = qty("distanceWalkingRunning", 100, 200, 5, unit: "m")
            let bad = qty("distanceWalkingRunning", 300, 299, 5, unit: "m")
            let error = await #expect(throws: HealthError.self) {
                _ = try await store.save([good, qty(400, 500, 3), bad])
            }
            #expect(error?.code == .invalidArgument)

            // Nothing of the batch is stored: not the valid samples before the bad one, not the new type.
            #expect(try await all(store, "distanceWalkingRunning").isEmpty)
            #expect(try await all(store).map(\.uuid) == [qty(0, 60, 1).uuid])
            #expect(try await store.currentAnchor() == anchor)
            #expect(try await store.typeSummaries().map(\.type) == ["stepCount"])
            #expect(try await store.changes(since: anchor, types: nil, limit: 100).added.isEmpty)

            // The store keeps working after the rollback (the intern cache must not keep rolled-back IDs).
            #expect(try await store.save([good]).inserted == 1)
            #expect(try await all(store, "distanceWalkingRunning") == [good])
            #expect(try await store.typeSummaries().map(\.type) == ["distanceWalkingRunning", "stepCount"])
            #expect(try await store.currentAnchor() == anchor + 1)
        }
    }

    @Test(arguments: TestStores.kinds) func aZeroLengthSampleIsAccepted(kind: TestStoreKind) async throws {
        try await TestStores.withStore(kind) { store throws in
            #expect(try await store.save([qty("heartRate", 5, 5, 70, unit: "count/min")]).inserted == 1)
            #expect(try await store.save([]) == SaveResult())
        }
    }
}
