import PairedAPI
import Foundation
import HealthModel
import Testing

/// The `healthbridge` binary as a person or a script runs it: output, JSON, exit codes.
@Suite("CLI")
struct CLITests {
    @Test func readCommandsPrintTablesAndJSON() async throws {
        let types = try await CLI.run(["types"])
        #expect(types.status == 0)
        #expect(types.stdout.contains("stepCount") && types.stdout.contains("statistics"))
        let json = try await CLI.run(["types", "--json"])
        #expect(json.status == 0)
        #expect(json.json?["time_zone"]?.stringValue == "Europe/Paris")
        #expect((json.json?["types"]?.arrayValue?.count ?? 0) > 5)

        let latest = try await CLI.run(["latest", "--type", "bodyMass", "--json"])
        #expect(latest.json?["found"] == .bool(true))
        #expect(latest.json?["unit"]?.stringValue == "kg")
        let today = try await CLI.run(["today", "--json"])
        #expect(today.status == 0)
        #expect(today.json?["merged"] == .bool(true))
        let workouts = try await CLI.run(["workouts", "--from", "2025-12-01", "--to", "2026-01-10", "--json"])
        let uuid = try #require(workouts.json?["workouts"]?.arrayValue?.first?["uuid"]?.stringValue)
        let detail = try await CLI.run(["workouts", "--uuid", uuid, "--json"])
        #expect(detail.json?["uuid"]?.stringValue == uuid)
        #expect(detail.json?["route"]?["point_count"] != nil)
        let sources = try await CLI.run(["sources", "--type", "stepCount", "--json"])
        #expect(sources.json?["priority_order"]?.arrayValue?.count == 2)

        // Units are converted by the service: kilojoules are 4.184 × kilocalories.
        let kcal = try await CLI.run(["summary", "--type", "activeEnergyBurned", "--from", "2026-01-01", "--to", "2026-01-02",
                                      "--interval", "total", "--json"])
        let kj = try await CLI.run(["summary", "--type", "activeEnergyBurned", "--from", "2026-01-01", "--to", "2026-01-02",
                                    "--interval", "total", "--unit", "kJ", "--json"])
        let a = try #require(kcal.json?["buckets"]?.arrayValue?.first?["sum"]?.doubleValue)
        let b = try #require(kj.json?["buckets"]?.arrayValue?.first?["sum"]?.doubleValue)
        #expect(abs(b - a * 4.184) < 0.01)
        #expect(kj.json?["unit"]?.stringValue == "kJ")
    }

    @Test func errorsAreOneJSONLineOnStderrWithAnExitCode() async throws {
        let unknown = try await CLI.run(["summary", "--type", "stepcont", "--json"])
        #expect(unknown.status == 1)
        #expect(unknown.stdout.isEmpty)
        #expect(unknown.stderr.split(separator: "\n").count == 1)
        #expect(unknown.errorJSON?["error"]?["code"]?.stringValue == "HEALTH_INVALID_TYPE", "\(unknown.stderr)")
        #expect(unknown.errorJSON?["error"]?["message"]?.stringValue?.contains("stepCount") == true)

        // A usage error (argument parsing) is JSON too, with the usage exit code.
        let usage = try await CLI.run(["summary", "--json"])
        #expect(usage.status == 64)
        #expect(usage.errorJSON?["error"]?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
        let badOption = try await CLI.run(["query", "--type", "heartRate", "--limit", "many", "--json"])
        #expect(badOption.status == 64)
        #expect(badOption.errorJSON?["error"]?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")

        // Without --json: one human line, same exit code.
        let human = try await CLI.run(["summary", "--type", "stepz"])
        #expect(human.status == 1)
        #expect(human.stderr.contains("HEALTH_INVALID_TYPE"))
        #expect(human.errorJSON == nil)

        // Help is not an error.
        let help = try await CLI.run(["grants", "--help", "--json"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("device:*"))
    }

    /// Commands started together on a data directory that does not exist yet (a script running several at once)
    /// all succeed: whoever creates the store and the audit state first, the others wait for it.
    @Test func commandsRunSideBySideOnANewDataDirectory() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-cli-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let runs = try await withThrowingTaskGroup(of: CLI.Run.self) { group in
            for i in 0..<6 {
                group.addTask {
                    i.isMultiple(of: 2)
                        ? try await CLI.run(["summary", "--type", "stepcont", "--json"], home: home)
                        : try await CLI.run(["log", "water", "250", "--log-id", "race-\(i)", "--json"], home: home)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs {
            let code = run.errorJSON?["error"]?["code"]?.stringValue
            #expect(run.status == 0 || code == "HEALTH_INVALID_TYPE", "\(run.stderr)")
        }
        let water = try await CLI.run(["query", "--type", "dietaryWater", "--json"], home: home)
        #expect(water.json?["samples"]?.arrayValue?.count == 3, "\(water.stdout)")
    }

    /// Issue 17, finding 4: plain-text ws:// to a gateway beyond this machine is refused by both commands before any
    /// connection, with the flag that would allow it named; loopback stays allowed.
    @Test func plainTextGatewaysBeyondLoopbackAreRefused() async throws {
        for command in [["node", "--token", "t"], ["serve", "--mcp-port", "0", "--no-advertise"]] {
            for url in ["ws://192.0.2.10:18789", "ws://gateway.example:18789", "ws://127.0.0.1.evil.example:18789"] {
                let started = ContinuousClock.now
                let run = try await CLI.run(command + ["--gateway", url])
                #expect(run.status != 0, "\(command[0]) accepted \(url)")
                #expect(run.stderr.contains("--allow-insecure-gateway"), "\(command[0]) \(url): \(run.stderr)")
                // Generous for a loaded machine: a command that tried to connect would retry until killed, never exit.
                #expect(ContinuousClock.now - started < .seconds(90), "refused at once, not after trying to connect")
            }
        }
    }

    @Test func grantsAreShownAndChangedAndKeptInTheStore() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-cli-grants-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let list = try await CLI.run(["grants", "--json"], home: home)
        #expect(list.status == 0)
        let principals = list.json?["principals"]?.arrayValue ?? []
        #expect(principals.contains { $0["principal"]?.stringValue == "mcp:default" && $0["read"]?.stringValue == "all" })
        #expect(principals.contains { $0["principal"]?.stringValue == "device:*" && $0["read"]?.stringValue == "none" })

        let shared = try await CLI.run(["grants", "device:*", "--allow-read", "stepCount,HKQuantityTypeIdentifierHeartRate", "--json"],
                                       home: home)
        #expect(shared.json?["read"]?.stringValue == "heartRate, stepCount")
        let denied = try await CLI.run(["grants", "mcp", "--deny", "heartRate"], home: home)
        #expect(denied.status == 0)
        #expect(denied.stdout.contains("all except heartRate"))
        let again = try await CLI.run(["grants", "mcp", "--json"], home: home)
        #expect(again.json?["principals"]?.arrayValue?.first?["read"]?.stringValue == "all except heartRate")
        // `sharing types` edits the same grants.
        let sharing = try await CLI.run(["sharing", "types", "--disable", "heartRate", "--json"], home: home)
        #expect(sharing.json?["types"] == ["stepCount"])

        // Writes from the command line land in the audit log, without values.
        // A value no timestamp or hash of the log can contain by chance ("333" matched a `.333Z` once).
        let logged = try await CLI.run(["log", "water", "287.5", "--log-id", "g-1", "--json"], home: home)
        #expect(logged.status == 0, "\(logged.stderr)")
        let audit = try await CLI.run(["audit", "--json"], home: home)
        #expect(audit.stdout.contains("data.write") && audit.stdout.contains("dietaryWater"))
        #expect(!audit.stdout.contains("287.5"))

        let bad = try await CLI.run(["grants", "mcp", "--allow-read", "stepz", "--json"], home: home)
        #expect(bad.status == 1)
        #expect(bad.errorJSON?["error"]?["code"]?.stringValue == "HEALTH_INVALID_TYPE")
        let nobody = try await CLI.run(["grants", "robot:x", "--allow-read", "stepCount", "--json"], home: home)
        #expect(nobody.errorJSON?["error"]?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
    }
}

/// The Health Auto Export pieces of the command line: tokens and importing HAE's JSON files.
@Suite("CLI ingest")
struct CLIIngestTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../HealthAutoExportTests/Fixtures").standardizedFileURL

    @Test func ingestTokensAreCreatedListedAndRevokedWithTheirGrants() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-cli-ingest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let created = try await CLI.run(["ingest-token", "create", "iphone", "--json"], home: home)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.json?["name"]?.stringValue == "iphone")
        let token = try #require(created.json?["token"]?.stringValue)
        #expect(token.count == 43)
        let again = try await CLI.run(["ingest-token", "create", "iphone", "--json"], home: home)
        #expect(again.status == 1 && again.errorJSON?["error"]?["code"]?.stringValue == "HEALTH_INVALID_ARGUMENT")
        let grants = try await CLI.run(["grants", "ingest:iphone", "--json"], home: home)
        let entry = grants.json?["principals"]?.arrayValue?.first
        #expect(entry?["read"]?.stringValue == "none")
        #expect(entry?["write"]?.stringValue?.contains("stepCount") == true)
        #expect(entry?["write"]?.stringValue?.contains("workout") == true)
        let list = try await CLI.run(["ingest-token", "list", "--json"], home: home)
        #expect(list.json?.arrayValue?.first?["principal"]?.stringValue == "ingest:iphone")
        #expect(!list.stdout.contains(token), "the token is shown once")
        let revoked = try await CLI.run(["ingest-token", "revoke", "iphone"], home: home)
        #expect(revoked.status == 0)
        let state = try await CLI.run(["ingest-token", "list"], home: home)
        #expect(state.stdout.contains("revoked"))
        let missing = try await CLI.run(["ingest-token", "revoke", "nobody"], home: home)
        #expect(missing.status != 0)
    }

    @Test func importRecognisesAHealthAutoExportFileByContent() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-cli-hae-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        // A file whose name says nothing: recognised by its content.
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let file = home.appendingPathComponent("push.txt")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("metrics-hourly.json"), to: file)
        let first = try await CLI.run(["import", file.path, "--json"], home: home)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.json?["format"]?.stringValue == "health-auto-export")
        #expect(first.json?["inserted"]?.doubleValue == 17)
        #expect(first.json?["unknown"]?["made_up_metric"]?.doubleValue == 2)
        let second = try await CLI.run(["import", file.path], home: home)
        #expect(second.status == 0 && second.stdout.contains("0 new") && second.stdout.contains("17 already stored"))
        #expect(second.stdout.contains("made_up_metric (2)"))
        let steps = try await CLI.run(["summary", "--type", "stepCount", "--from", "2024-03-04", "--to", "2024-03-05",
                                       "--interval", "total", "--tz", "Europe/Berlin", "--json"], home: home)
        #expect(steps.json?["buckets"]?.arrayValue?.first?["sum"]?.doubleValue == 3750.5)
        let audit = try await CLI.run(["audit", "--json"], home: home)
        #expect(audit.stdout.contains("health-auto-export") && !audit.stdout.contains("3750"))
    }

    @Test func importRecognisesAHealthConnectPayloadByContent() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hb-cli-hc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let file = home.appendingPathComponent("android.json")
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("health-connect-webhook.json"), to: file)
        let first = try await CLI.run(["import", file.path, "--json"], home: home)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.json?["format"]?.stringValue == "health-connect")
        #expect(first.json?["inserted"]?.doubleValue == 21)
        let second = try await CLI.run(["import", file.path], home: home)
        #expect(second.status == 0 && second.stdout.contains("Health Connect") && second.stdout.contains("21 already stored"))
    }
}
