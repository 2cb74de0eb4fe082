import HealthAPI
import PairedAPIClient
import Foundation
import HealthModel

// Generic, typed calls for everything the API offers: samples, statistics, the change feed, and any endpoint.
extension HealthBridgeManager {
    /// Any `GET /api/v1/<path>`, decoded as `Result`.
    ///
    /// ```swift
    /// struct Today: Decodable, Sendable { var steps: Double? }
    /// let today = try await manager.get("health/today", as: Today.self)
    /// ```
    public func get<Result: Decodable & Sendable>(_ path: String, query: [(String, String)] = [],
                                                  as type: Result.Type = Result.self) async throws(HealthBridgeError) -> Result {
        do {
            return try await call("GET", path, query: query, as: type)
        } catch {
            throw HealthBridgeError.wrap(error, .query)
        }
    }

    /// Any `POST /api/v1/<path>` with a JSON body, decoded as `Result`.
    ///
    /// ```swift
    /// let outcome = try await manager.post("log/water", body: ["value": 250], as: WriteResult.self)
    /// ```
    public func post<Body: Encodable & Sendable, Result: Decodable & Sendable>(
        _ path: String, body: Body, as type: Result.Type = Result.self) async throws(HealthBridgeError) -> Result {
        do {
            return try await call("POST", path, body: Array(try JSONEncoder.wire.encode(body)), as: type)
        } catch {
            throw HealthBridgeError.wrap(error, .save)
        }
    }

    /// One page of samples of some types in a range (`POST /api/v1/health/data`).
    ///
    /// ```swift
    /// let page = try await manager.samples(DataRequest(types: ["bodyMass"], start: "2026-01-01T00:00:00Z", end: "2026-02-01T00:00:00Z"))
    /// ```
    public func samples(_ request: DataRequest) async throws(HealthBridgeError) -> DataResponse {
        do {
            return try await call("POST", "health/data", body: Array(try JSONEncoder.wire.encode(request)),
                                  as: DataResponse.self)
        } catch {
            throw HealthBridgeError.wrap(error, .query)
        }
    }

    /// Every page of a samples request, following the cursor.
    ///
    /// ```swift
    /// let year = try await manager.allSamples(DataRequest(types: ["bodyMass"], start: "2025-01-01T00:00:00Z", end: "2026-01-01T00:00:00Z"))
    /// ```
    public func allSamples(_ request: DataRequest, maxSamples: Int = 100_000) async throws(HealthBridgeError) -> [ExportSample] {
        var request = request
        var all: [ExportSample] = []
        while true {
            let page = try await samples(request)
            all += page.samples
            guard let next = page.nextCursor, all.count < maxSamples else { return all }
            request.cursor = next
        }
    }

    /// Statistics of one type, merged across sources by the server's priority order (HKStatisticsQuery and
    /// HKStatisticsCollectionQuery).
    ///
    /// ```swift
    /// let steps = try await manager.statistics(StatisticsQuery(type: .stepCount, start: "7d", interval: "day"))
    /// ```
    public func statistics(_ query: StatisticsQuery) async throws(HealthBridgeError) -> SummaryResult {
        try await get("health/statistics", query: query.query, as: SummaryResult.self)
    }

    /// What was added and deleted since `anchor` (HKAnchoredObjectQuery); `wait` long-polls up to that many
    /// seconds (0…60) when nothing changed yet.
    ///
    /// ```swift
    /// var batch = try await manager.changes(types: [.bodyMass])
    /// batch = try await manager.changes(types: [.bodyMass], anchor: batch.anchor, wait: 20)
    /// ```
    public func changes(types: Set<HealthDataType>, anchor: String? = nil, wait: Double = 0,
                        limit: Int? = nil) async throws(HealthBridgeError) -> ChangesResult {
        var query = [("types", types.map(\.rawValue).sorted().joined(separator: ","))]
        if let anchor { query.append(("anchor", anchor)) }
        if wait > 0 { query.append(("wait", String(wait))) }
        if let limit { query.append(("limit", String(limit))) }
        do {
            return try await call("GET", "health/changes", query: query,
                                  timeout: timeout + .milliseconds(Int(wait * 1_000)), as: ChangesResult.self)
        } catch {
            throw HealthBridgeError.wrap(error, .query)
        }
    }
}
