import Foundation
import HealthAPI
import struct HealthAPI.GrantsUpdate
import struct HealthAPI.ChangesRequest
import GatewayNode
import HealthAutoExport
import HealthModel
@testable import HealthService
import HealthStore
import Testing

extension GatewayNodeTests {
    /// A Health Auto Export push reaches a subscribed node as health.update, and the change feed, within a second.
    @Suite struct IngestUpdates {
        /// An HAE payload with heart-rate readings of the last minutes (times with seconds: samples, not buckets).
        static func payload(_ values: [Double], now: Date) -> [UInt8] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(secondsFromGMT: 3600)
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
            let items = values.enumerated().map { index, value in
                let date = formatter.string(from: now.addingTimeInterval(-300 + Double(index) * 37 + 7))
                return #"{"date": "\#(date)", "qty": \#(value), "source": "Sam’s Apple Watch"}"#
            }
            return Array(#"{"data": {"metrics": [{"name": "heart_rate", "units": "count/min", "data": [\#(items.joined(separator: ","))]}]}}"#.utf8)
        }

        @Test func aPushIsAHealthUpdateWithinOneSecond() async throws {
            try await withTemporaryDirectory { dir in
                let service = try await makeService(dir)
                try await service.updateGrants(GrantsUpdate(principal: "ingest:phone", allowWrite: ["heartRate"]))
                let phone = service.acting(as: Principal(kind: .ingest, name: "phone"))
                try await withConnectedNode(service: service, directory: dir) { gateway, _ in
                    let subscribe: JSONValue = .object(["types": .array([.string("heartRate")])])
                    #expect(await gateway.invoke("health.subscribe", params: subscribe) == .ok(payloadJSON: nil))
                    let before = try await service.store.currentAnchor()
                    let now = Date()
                    let report = try await phone.ingest(try HAEPayloadReader().batch(Self.payload([61, 64, 67], now: now)))
                    let committed = ContinuousClock.now
                    #expect(report.inserted == 3)
                    #expect(await gateway.wait(.seconds(2)) { !$0.events.isEmpty })
                    let event = try #require(gateway.events().first)
                    #expect(event.at - committed < .seconds(1), "after \(event.at - committed)")
                    let update = try updatePayload(event)
                    #expect(update.type == "heartRate" && update.latestSamples.map(\.value) == [67, 64, 61])
                    #expect(update.latestSamples.first?.source == "Sam’s Apple Watch")
                    let changes = try await service.changes(ChangesRequest(types: ["heartRate"], anchor: String(before)))
                    #expect(changes.added.count == 3)
                    // The same push again: nothing new, no event.
                    let again = try await phone.ingest(try HAEPayloadReader().batch(Self.payload([61, 64, 67], now: now)))
                    #expect(again.inserted == 0 && again.unchanged == 3)
                    try await Task.sleep(for: .milliseconds(1_200))
                    #expect(gateway.events().count == 1)
                }
            }
        }
    }
}
