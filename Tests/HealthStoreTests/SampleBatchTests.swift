import Foundation
import Testing
import HealthModel
import HealthStore

/// SQLite only: `SampleBatch` is `BulkImportStore`'s packed form, which only the SQLite store adopts.
@Suite struct SampleBatchTests {
    /// Samples of every shape: quantity, category, no value; with and without metadata, creation date, offset,
    /// time zone and sync identifier; several types, sources and units, interleaved.
    static let mixed: [HealthSample] = {
        var samples: [HealthSample] = []
        for i in 0..<100 {
            let start = Double(i) * 60
            switch i % 5 {
            case 0:
                samples.append(qty(start, start + 60, Double(i), source: watchSource))
            case 1:
                samples.append(qty("distanceWalkingRunning", start, start + 60, Double(i) / 10, unit: "km",
                                   metadata: ["HKWasUserEntered": "1", "note": "a \"quoted\"\\ value\n"]))
            case 2:
                samples.append(HealthSample(type: "sleepAnalysis", start: at(start), end: at(start + 60),
                                            value: .category(i % 3), source: phoneSource, creationDate: at(start + 61),
                                            metadata: [MetadataKey.timeZone: "Europe/Paris"], utcOffset: 7200))
            case 3:
                samples.append(HealthSample(type: "mindfulSession", start: at(start), end: at(start + 30), value: .none,
                                            source: healthAppSource, utcOffset: -18_000))
            default:
                samples.append(synced("weight-\(i)", version: 1, value: 70 + Double(i) / 100, start: start,
                                      end: start))
            }
        }
        return samples
    }()

    @Test("a batch gives back exactly the samples it was made of")
    func roundTrip() {
        let batch = SampleBatch(Self.mixed)
        #expect(batch.count == Self.mixed.count)
        #expect(batch.samples == Self.mixed)
        // Strings shared by rows are stored once.
        #expect(batch.tables.types.count == 5)
        #expect(batch.tables.sources.count == 4)
        #expect(batch.tables.units.count == 3)
    }

    @Test("saving a batch stores what saving its samples stores, in the same order of change")
    func sameAsSamples() async throws {
        let viaSamples = try SQLiteHealthStore.inMemory()
        let viaBatch = try SQLiteHealthStore.inMemory()
        let first = try await viaSamples.save(Self.mixed)
        let second = try await viaBatch.save(SampleBatch(Self.mixed))
        #expect(first == second)
        #expect(second.inserted == 100)
        let a = try await viaSamples.changes(since: nil, types: nil, limit: 1_000)
        let b = try await viaBatch.changes(since: nil, types: nil, limit: 1_000)
        #expect(a.added == b.added)
        #expect(a.anchor == b.anchor)
        // The change feed is in input order: multi-row statements and single rows (time zones, sync
        // identifiers) interleave without reordering.
        #expect(b.added.map(\.uuid) == Self.mixed.map(\.uuid))
        #expect(b.added == Self.mixed)

        // Saved again: every row is recognised, the anchor does not move.
        let again = try await viaBatch.save(SampleBatch(Self.mixed))
        #expect(again.inserted == 0)
        #expect(again.ignored == 100)
        #expect(try await viaBatch.currentAnchor() == b.anchor)
    }

    @Test("a newer sync version in a batch replaces the stored sample; an older one is ignored")
    func syncIdentifiers() async throws {
        let store = try SQLiteHealthStore.inMemory()
        _ = try await store.save(SampleBatch([synced("w", version: 2, value: 70)]))
        let older = try await store.save(SampleBatch([synced("w", version: 1, value: 71, start: 10, end: 10)]))
        #expect(older.ignored == 1)
        let newer = try await store.save(SampleBatch([synced("w", version: 3, value: 72, start: 20, end: 20)]))
        #expect(newer.replaced == 1)
        #expect(newer.inserted == 0)
        #expect(try await all(store, "bodyMass").map(\.value) == [.quantity(72, unit: "kg")])
    }

    @Test("only the types, sources and units rows use are written to the store")
    func unusedTableEntries() async throws {
        let store = try SQLiteHealthStore.inMemory()
        var tables = SampleTables()
        _ = tables.source(scaleSource)  // never used by a row
        _ = tables.type("bodyFatPercentage")
        var batch = SampleBatch(tables: tables)
        batch.append(qty(0, 60, 10))
        _ = try await store.save(batch)
        let names = try await store.sources(type: nil).map(\.source.name)
        #expect(names == [phoneSource.name])
        #expect(try await store.typeSummaries().map(\.type) == ["stepCount"])
    }

    static func row(type: Int32 = 0, source: Int32 = 0, unit: Int32 = 0, kind: SampleBatch.ValueKind = .quantity,
                    value: Double = 1, start: Double = 0, end: Double = 60,
                    metadata: SampleBatch.TextRange = .none) -> SampleBatch.Row {
        SampleBatch.Row(uuid: UUID(), start: start, end: end, value: value, created: .nan, type: type, source: source,
                        unit: unit, utcOffset: .min, kind: kind, metadata: metadata)
    }

    @Test("rows that point outside their batch or break a sample's rules are refused, and nothing is saved",
          arguments: [
              ("unknown type", row(type: 3)),
              ("negative source", row(source: -1)),
              ("quantity without unit", row(unit: -1)),
              ("text outside the buffer", row(metadata: SampleBatch.TextRange(offset: 2, count: 100))),
              ("fractional category", row(kind: .category, value: 2.5)),
              ("ends before it starts", row(start: 60, end: 0)),
          ])
    func refused(_ label: String, _ bad: SampleBatch.Row) async throws {
        let store = try SQLiteHealthStore.inMemory()
        var tables = SampleTables()
        _ = tables.type("stepCount")
        _ = tables.source(phoneSource)
        _ = tables.unit("count")
        var batch = SampleBatch(tables: tables)
        _ = batch.appendText("{}")
        batch.append(Self.row())
        batch.append(bad)
        let error = await #expect(throws: HealthError.self, "\(label)") { _ = try await store.save(batch) }
        #expect(error?.code == .invalidArgument)
        #expect(try await store.currentAnchor() == 0)
        #expect(try await all(store).isEmpty)
    }

    @Test("metadata is stored as a JSON object with sorted keys and escaped values")
    func metadataEncoding() {
        #expect(MetadataCoding.encode([:]) == nil)
        #expect(MetadataCoding.encode(["b": "2", "a": "say \"hi\"\\\n\u{01}"])
                == #"{"a":"say \"hi\"\\\u000a\u0001","b":"2"}"#)
        let decoded = MetadataCoding.decode(MetadataCoding.encode(["a": "say \"hi\"\\\n\u{01}", "é": "ü"]))
        #expect(decoded == ["a": "say \"hi\"\\\n\u{01}", "é": "ü"])
    }
}
