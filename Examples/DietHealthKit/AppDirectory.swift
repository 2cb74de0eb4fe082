import ArgumentParser
import Foundation
import HealthBridgeKit
import HealthKitBridge

/// The app's directory (`--dir`): the pairing credentials `healthbridge.json`, the app's own files (`meals.json`,
/// `weights.json`, `crash-load.journal`) and what HealthKitBridge keeps next to the credentials (anchors, pending saves).
///
/// ```swift
/// @OptionGroup var app: AppDirectory
/// let manager = try app.configure()   // HKHealthStore() now talks to the paired server
/// ```
struct AppDirectory: ParsableArguments {
    @Option(help: "The app's directory (default: $DIETHEALTHKIT_HOME, else ~/.diet-healthkit).") var dir: String?

    static let appId = "org.example.diethealthkit"

    var url: URL {
        if let dir { return URL(fileURLWithPath: dir) }
        if let env = ProcessInfo.processInfo.environment["DIETHEALTHKIT_HOME"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".diet-healthkit")
    }

    var credentialsFile: URL { url.appendingPathComponent("healthbridge.json") }

    /// Opens the pairing and hands it to `HKHealthStore`, as the app does once at launch.
    func configure(requirePaired: Bool = true) throws -> HealthBridgeManager {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let manager = try HealthBridgeManager(appId: Self.appId, credentialsFile: credentialsFile, timeout: .seconds(10))
        if requirePaired, !manager.isAvailable {
            throw AppFailure("not paired: run `diet-healthkit pair --qr '<json>'` with a code from `healthbridge pair-code --json --app \(Self.appId)`")
        }
        HKHealthStore.configure(manager)
        return manager
    }
}

/// A failure the app explains in one line.
struct AppFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command's body; any error becomes one clear line on stderr and exit status 1.
func runReporting(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch {
        let message: String
        if let localized = error as? LocalizedError, let text = localized.errorDescription {
            message = text
        } else {
            message = String(describing: error)
        }
        FileHandle.standardError.write(Data("diet-healthkit: \(message)\n".utf8))
        throw ExitCode.failure
    }
}

/// Prints a line at once (unbuffered): `launch` and `crash-load` are read by other programs while they run.
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// ISO 8601 with milliseconds, as `healthbridge --json` prints instants.
func isoString(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
}

/// Prints `value` as pretty JSON (sorted keys).
func printJSON<Value: Encodable>(_ value: Value) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    say(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// A number rounded for display, never trapping (whatever the value: huge, NaN or infinite).
func whole(_ value: Double) -> String {
    value.isFinite ? String(format: "%.0f", value) : "\(value)"
}

/// A date a moment ago in whole seconds: what the app writes, so that reading it back finds the same instant.
func wholeSecondNow() -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 1).rounded(.down))
}
