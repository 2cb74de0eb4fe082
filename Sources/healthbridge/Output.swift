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

    /// Prints rows under a header, in the one table every interface uses (``TextFormat/table(_:_:)``).
    static func table(_ header: [String], _ rows: [[String]]) {
        print(TextFormat.table(header, rows))
    }

    /// A number in the one format every interface uses (``TextFormat/number(_:decimals:)``): thousands separators,
    /// no spurious `.0`; `decimals` nil picks 0 for large values and up to 2 for small ones.
    static func number(_ value: Double?, decimals: Int? = 0) -> String {
        TextFormat.number(value, decimals: decimals)
    }

    /// `7h12` from minutes (``TextFormat/minutes(_:)``).
    static func minutes(_ value: Double) -> String { TextFormat.minutes(value) }

    /// `2024-05-07 13:57` in `zone`.
    static func date(_ date: Date?, _ zone: TimeZone) -> String { TextFormat.time(date, zone) }

    /// `2024-05-07 13:57` from an instant of a result (already in the result's zone).
    static func local(_ iso: String?) -> String { TextFormat.local(iso) }

    static func grants(_ entries: [GrantsResult.Entry]) {
        table(["principal", "read", "write", "set by"], entries.map { entry in
            [entry.principal, entry.read, entry.write, entry.explicit ? "owner" : "default"]
        })
    }

    /// How the CLI's text tells the user to continue a paged answer: the command to run with the cursor.
    ///
    /// ```swift
    /// Output.textStyle.continuation(.samples, "abc")   // "`healthbridge query --cursor abc`"
    /// ```
    static let textStyle = TextStyle(
        workoutDetails: "`healthbridge workouts --uuid UUID` gives a workout's statistics, events and route"
    ) { operation, cursor in
        switch operation {
        case .samples: "`healthbridge query --cursor \(cursor)`"
        // summary and sleep read every page, workouts and activity show one page (--limit), a workout its route's
        // summary.
        case .summary, .sleep, .workouts, .activity, .routePoints: nil
        }
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
