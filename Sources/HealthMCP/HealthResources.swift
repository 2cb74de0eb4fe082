import Foundation
import HealthAPI
import HealthModel
import HealthService
import MCP

/// The resources an MCP client can read and subscribe to, each the JSON of a service result (the same document the
/// matching tool gives as structured content):
///
/// - `healthbridge://types`: the types with data (`list_types`), `healthbridge://sources`: the sources
///   (`list_sources`), `healthbridge://today`: today so far (`health_today`);
/// - the templates `healthbridge://summary/{type}` (the last 30 days of one type, a bucket per day: `summarize`) and
///   `healthbridge://latest/{type}` (its most recent value: `latest`).
///
/// ```swift
/// let resources = HealthResources(service: toolbox.service)
/// let steps = try await resources.read("healthbridge://summary/stepCount")   // application/json
/// ```
public struct HealthResources: Sendable {
    /// The service, acting for the MCP client.
    public let service: HealthService

    public init(service: HealthService) {
        self.service = service
    }

    public static let scheme = "healthbridge://"
    public static let mimeType = "application/json"

    /// What a resource URI names.
    enum Address: Hashable, Sendable {
        case types, sources, today
        case summary(String), latest(String)

        /// The type whose commits change this resource; nil when any commit may (types, sources, today).
        var type: String? {
            switch self {
            case .types, .sources, .today: nil
            case .summary(let type), .latest(let type): type
            }
        }
    }

    /// The fixed resources: address, name, title, description.
    static let fixed: [(Address, String, String, String)] = [
        (.types, "types", "Health data types",
         "The types with data: sample counts, first and last dates, units and the statistics each accepts (list_types)."),
        (.sources, "sources", "Sources",
         "The devices and apps that recorded data, with their sample counts (list_sources)."),
        (.today, "today", "Today",
         "Today so far: steps and active energy merged by source priority, resting heart rate, last night's sleep, workouts (health_today)."),
    ]

    /// The templates, for `resources/templates/list`.
    public static let templates: [Resource.Template] = [
        Resource.Template(uriTemplate: scheme + "summary/{type}", name: "summary", title: "Daily summary of a type",
                          description: "The last 30 days of one type, one bucket per day in the home time zone: merged totals for cumulative types (stepCount, activeEnergyBurned), average, minimum, maximum and most recent for discrete ones (restingHeartRate, bodyMass). {type} is a HealthKit identifier with or without its prefix.",
                          mimeType: mimeType),
        Resource.Template(uriTemplate: scheme + "latest/{type}", name: "latest", title: "Latest value of a type",
                          description: "The most recent sample of one type (bodyMass, restingHeartRate, vo2Max, …) with its value, unit, date, source and age.",
                          mimeType: mimeType),
    ]

    static func uri(_ address: Address) -> String {
        switch address {
        case .types: scheme + "types"
        case .sources: scheme + "sources"
        case .today: scheme + "today"
        case .summary(let type): scheme + "summary/" + type
        case .latest(let type): scheme + "latest/" + type
        }
    }

    /// The fixed resources with the size of their current content, for `resources/list`.
    public func list() async throws -> [Resource] {
        var resources: [Resource] = []
        for (address, name, title, description) in Self.fixed {
            let size = try await content(address).count
            resources.append(Resource(name: name, uri: Self.uri(address), title: title, description: description,
                                      mimeType: Self.mimeType, size: size))
        }
        return resources
    }

    /// One resource's content, for `resources/read`. An unknown URI is MCP's "resource not found" (-32002); an unknown
    /// type or one without statistics is `invalidParams` with the service's message.
    public func read(_ uri: String) async throws -> ReadResource.Result {
        let address = try Self.parse(uri)
        let data = try await content(address)
        return ReadResource.Result(contents: [.text(String(decoding: data, as: UTF8.self), uri: uri, mimeType: Self.mimeType)])
    }

    /// The JSON of the service result behind `address`.
    func content(_ address: Address) async throws -> Data {
        do {
            switch address {
            case .types: return try JSONEncoder.wire.encode(try await service.types())
            case .sources: return try JSONEncoder.wire.encode(try await service.sources(SourcesRequest()))
            case .today: return try JSONEncoder.wire.encode(try await service.today())
            case .latest(let type): return try JSONEncoder.wire.encode(try await service.latest(LatestRequest(type: type)))
            case .summary(let type):
                return try JSONEncoder.wire.encode(try await service.summary(SummaryRequest(
                    type: type, start: "30d", interval: "day")))
            }
        } catch let error as HealthError {
            throw MCPError(error)
        }
    }

    /// The address a URI names; `{type}` is checked against the registry and kept by its short identifier.
    static func parse(_ uri: String) throws -> Address {
        let known = (fixed.map { Self.uri($0.0) } + templates.map(\.uriTemplate)).joined(separator: ", ")
        let notFound = MCPError.serverError(code: -32002, message: "Resource not found: '\(uri.prefix(120))'; the resources are \(known)")
        guard uri.hasPrefix(scheme) else { throw notFound }
        let path = String(uri.dropFirst(scheme.count))
        switch path {
        case "types": return .types
        case "sources": return .sources
        case "today": return .today
        default: break
        }
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, ["summary", "latest"].contains(parts[0]) else { throw notFound }
        guard let name = parts[1].removingPercentEncoding, !name.isEmpty, !name.contains("/") else {
            throw MCPError.invalidParams("\(uri.prefix(120)) names no type; write \(scheme)\(parts[0])/stepCount or another type list_types gives")
        }
        let type: SampleType
        do {
            type = try SampleTypeRegistry.resolve(name)
        } catch {
            throw MCPError(error)
        }
        return parts[0] == "summary" ? .summary(type.identifier) : .latest(type.identifier)
    }
}
