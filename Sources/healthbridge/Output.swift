import Foundation
import HealthAPI
import HealthModel
import HealthService
import Logging

/// Console output: aligned tables for people, JSON for machines.
enum Output {
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder.wire
        encoder.outputFormatting.insert(.prettyPrinted)
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601.string(date))
        }
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints rows under a header, each column as wide as its widest cell; numbers right-aligned.
    static func table(_ header: [String], _ rows: [[String]]) {
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return isNumeric(cell) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        print(line(header))
        print(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
        for row in rows { print(line(row)) }
    }

    static func isNumeric(_ cell: String) -> Bool {
        guard let first = cell.first else { return false }
        return (first.isNumber || first == "-" || first == "+") && cell.allSatisfy { $0.isNumber || ".,-+%:".contains($0) }
    }

    /// A number with thousands separators; `decimals` nil picks 0 for large values and up to 2 for small ones.
    static func number(_ value: Double?, decimals: Int? = 0) -> String {
        guard let value, value.isFinite else { return "—" }
        let places = decimals ?? (abs(value) >= 1000 || value.rounded() == value ? 0 : (abs(value) >= 100 ? 1 : 2))
        let text = String(format: "%.\(places)f", value)
        let parts = text.split(separator: ".", maxSplits: 1)
        var integer = String(parts[0])
        let negative = integer.hasPrefix("-")
        if negative { integer.removeFirst() }
        var grouped = ""
        for (index, character) in integer.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        let result = (negative ? "-" : "") + String(grouped.reversed())
        return parts.count > 1 ? result + "." + parts[1] : result
    }

    static func minutes(_ value: Double) -> String {
        guard let total = value.checkedInt(), abs(total) < 1_000_000_000_000 else { return "—" }
        return "\(total / 60)h\(String(format: "%02d", total % 60))"
    }

    static func date(_ date: Date?, _ zone: TimeZone) -> String {
        guard let date else { return "—" }
        let iso = ISO8601.string(date, timeZone: zone)
        return String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// `2024-05-07 13:57` from an instant of a result (already in the result's zone).
    static func local(_ iso: String?) -> String {
        guard let iso else { return "—" }
        return String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// `13:57` from an instant of a result.
    static func clock(_ iso: String?) -> String {
        guard let iso, iso.count >= 16 else { return "—" }
        return String(iso.dropFirst(11).prefix(5))
    }

    /// A summary as a table: one row per bucket, the statistics it has, each source's own series with --by-source.
    static func summary(_ result: SummaryResult) {
        let daily = !result.interval.hasSuffix("minute") && !result.interval.hasSuffix("hour")
        let label: (SummaryBucket) -> String = { bucket in
            result.interval == "total" ? "\(local(bucket.start)) → \(local(bucket.end))"
                : daily ? String(bucket.start.prefix(10)) : local(bucket.start)
        }
        var columns: [(String, (SummaryBucket) -> String)] = []
        if result.statistics == ["duration"] {
            let names = Set(result.buckets.flatMap { $0.durationsMinutes?.keys.map { $0 } ?? [] }).sorted()
            for name in names { columns.append(("\(name) (min)", { number($0.durationsMinutes?[name], decimals: 1) })) }
        } else {
            let statistics = Set(result.statistics)
            if statistics.contains("sum") { columns.append(("sum (\(result.unit))", { number($0.sum, decimals: nil) })) }
            if statistics.contains("average") { columns.append(("average (\(result.unit))", { number($0.average, decimals: 1) })) }
            if statistics.contains("min") { columns.append(("min", { number($0.min, decimals: 1) })) }
            if statistics.contains("max") { columns.append(("max", { number($0.max, decimals: 1) })) }
            if statistics.contains("most_recent") { columns.append(("latest", { number($0.mostRecent, decimals: 1) })) }
        }
        let series = result.bySource ?? []
        let header = ["start"] + columns.map(\.0) + series.map(\.source) + ["sources"]
        let rows = result.buckets.map { bucket -> [String] in
            // A bucket without samples is missing, not 0.
            var row = [label(bucket)] + columns.map { bucket.count == 0 ? "no data" : $0.1(bucket) }
            for entry in series {
                let own = entry.buckets.first { $0.start == bucket.start }
                row.append(number(own?.sum ?? own?.average, decimals: own?.sum != nil ? nil : 1))
            }
            row.append(bucket.sources.joined(separator: ", "))
            return row
        }
        table(header, rows)
        if let total = result.totalSum, result.buckets.count > 1 { print("\nTotal: \(number(total, decimals: nil)) \(result.unit)") }
        let empty = result.buckets.filter { $0.count == 0 }.count
        if empty > 0 {
            print("\(empty) of \(result.buckets.count) buckets have no data (missing, not 0)\(result.totalSum == nil ? "" : "; the total covers the others").")
        }
        if let parts = result.contributions, !parts.isEmpty {
            print("\nWhich source won (part of the merged total, beside the source's own total):")
            table(["source", "counted", "own total"], parts.map {
                [$0.source, number($0.contribution, decimals: nil), number($0.ownTotal, decimals: nil)]
            })
        }
        if result.merged {
            print("\nMerged by source priority (\(result.sourcePriority.joined(separator: " → "))), as the Health app does.")
        }
    }

    static func sources(_ result: SourcesResult) {
        table(["rank", "source", "kind", "device", "samples"], result.sources.map { source in
            [source.rank.map(String.init) ?? "", source.name, source.category, source.device ?? "",
             number(Double(source.count))]
        })
    }

    static func workouts(_ workouts: [WorkoutRecord]) {
        table(["start", "activity", "minutes", "km", "kcal", "route points", "source", "uuid"], workouts.map { workout in
            [local(workout.start), workout.activityType, number(workout.durationMinutes, decimals: 1),
             number(workout.distanceKm, decimals: 2), number(workout.energyKcal), String(workout.routePointCount),
             workout.source, workout.uuid]
        })
    }

    static func grants(_ entries: [GrantsResult.Entry]) {
        table(["principal", "read", "write", "set by"], entries.map { entry in
            [entry.principal, entry.read, entry.write, entry.explicit ? "owner" : "default"]
        })
    }

    /// A ``HealthError/Hint`` in the CLI's words: the command that does it.
    ///
    /// ```swift
    /// HealthError(.invalidType, "unknown type 'stepz'", hint: .listTypes).rendered(Output.hint).message
    /// // "unknown type 'stepz' (`healthbridge types` lists them)"
    /// ```
    static func hint(_ hint: HealthError.Hint) -> String? {
        switch hint {
        case .listTypes: "`healthbridge types` lists them"
        case .listSources: "`healthbridge sources --type TYPE` lists them"
        case .listWorkouts: "workouts have their own command: `healthbridge workouts`"
        case .sleepNights: "`healthbridge sleep` lists the nights"
        case .ownerChangesGrants: "`healthbridge grants` on the server"
        case .ownerSharesTypes: "the owner shares types with `healthbridge sharing types --enable` or `healthbridge grants`"
        case .ownerAllowsWrite(let principal, let type): "`healthbridge grants \(principal) --allow-write \(type)`"
        case .ownerResumesSharing: "`healthbridge sharing resume`"
        }
    }

    /// An error in the one shape every interface uses: `{"error": {"code", "message"}}`, one line on stderr.
    static func jsonError(_ error: HealthError) {
        let data = (try? JSONEncoder.wire.encode(error.envelope)) ?? Data()
        FileHandle.standardError.write(data + Data("\n".utf8))
    }

    static func stderr(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

/// Library logs go to stderr, at warning level unless HEALTHBRIDGE_LOG_LEVEL says otherwise.
enum CLILog {
    static let logger: Logger = {
        var logger = Logger(label: "healthbridge") { label in StreamLogHandler.standardError(label: label) }
        let level = ProcessInfo.processInfo.environment["HEALTHBRIDGE_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .warning
        return logger
    }()
}

/// Type erasure for mixed JSON objects.
struct AnyEncodable: Encodable {
    let encodeValue: (Encoder) throws -> Void
    init<T: Encodable>(_ value: T) { encodeValue = value.encode }
    func encode(to encoder: Encoder) throws { try encodeValue(encoder) }
}
