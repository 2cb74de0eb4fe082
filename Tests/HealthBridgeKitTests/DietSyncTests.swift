import Foundation
import HealthBridgeKit
import Testing

extension KitTests {
    /// The example as a new user follows the README: pair, authorize (the owner approves), log a meal and a weight,
    /// delete a meal, today's calories in vs TDEE, and a weight written with `healthbridge log weight` picked up by
    /// `diet-sync watch`.
    @Test func dietSyncExampleEndToEnd() async throws {
        let server = try await ServerProcess()
        do {
            let dir = server.home.appendingPathComponent("diet").path
            func diet(_ arguments: [String]) async throws -> Binaries.Run {
                let run = try await Binaries.run(Binaries.dietSync, arguments + ["--dir", dir])
                #expect(run.status == 0, "diet-sync \(arguments.joined(separator: " ")): \(run.stderr)")
                return run
            }
            let paired = try await diet(["pair", "--qr", try await server.pairingPayload(app: "org.example.dietsync")])
            #expect(paired.stdout.contains("paired with 127.0.0.1"))
            let asked = try await diet(["authorize"])
            #expect(asked.stdout.contains("writing meals: notDetermined"))
            // Before approval a meal is kept and marked refused, not retried forever.
            let early = try await diet(["meal", "--id", "m0", "--name", "Toast", "--calories", "150"])
            #expect(early.stdout.contains("not authorized"))
            try await server.approvePending()
            let authorized = try await diet(["authorize"])
            #expect(authorized.stdout.contains("writing meals: sharingAuthorized"))
            #expect(authorized.stdout.contains("1 queued entries synced"))
            let meal = try await diet(["meal", "--id", "m1", "--name", "Porridge", "--calories", "320", "--protein", "11",
                                       "--carbs", "54", "--fat", "6"])
            #expect(meal.stdout.contains("synced with HealthBridge"))
            _ = try await diet(["meal", "--id", "m2", "--name", "Salad", "--calories", "410"])
            let weight = try await diet(["weight", "72.4"])
            #expect(weight.stdout.contains("synced"))
            let deleted = try await diet(["delete-meal", "m2"])
            #expect(deleted.stdout.contains("synced"))
            let today = try await diet(["today"])
            #expect(today.stdout.contains("calories in: 470 kcal"), "\(today.stdout)")
            #expect(today.stdout.contains("TDEE so far:"))
            // The server has the meals written, the deleted one gone.
            let food = try await Binaries.healthbridge(["query", "--type", "dietaryEnergyConsumed", "--from", "today", "--json"],
                                                       home: server.home)
            #expect(food.stdout.contains("320") && !food.stdout.contains("410"), "\(food.stdout) \(food.stderr)")

            // A weight written elsewhere reaches the app.
            async let watching = Binaries.run(Binaries.dietSync, ["watch", "--exit-after", "1", "--seconds", "60", "--dir", dir])
            try await Task.sleep(for: .seconds(2))
            let owner = try await Binaries.healthbridge(["log", "weight", "71.8"], home: server.home)
            #expect(owner.status == 0)
            let watch = try await watching
            #expect(watch.stdout.contains("new weight: 71.8 kg"), "\(watch.stdout) \(watch.stderr)")
            #expect(!watch.stdout.contains("new weight: 72.4"))   // its own weight: deduplicated by date
            let after = try await diet(["today"])
            #expect(after.stdout.contains("weight: 71.8 kg"))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
