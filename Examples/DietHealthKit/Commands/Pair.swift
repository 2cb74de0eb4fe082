import ArgumentParser
import Foundation
import HealthBridgeKit
import HealthKitBridge

/// `diet-healthkit pair --qr '<json>'`: pairs the app with `healthbridge serve` from a code issued for it.
struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair with HealthBridge (a code from `healthbridge pair-code --json --app org.example.diethealthkit`).")
    @OptionGroup var app: AppDirectory
    @Option(help: "The QR payload: the JSON of `healthbridge pair-code --json --app org.example.diethealthkit`.") var qr: String

    func run() async throws {
        try await runReporting {
            let manager = try app.configure(requirePaired: false)
            let server = try await manager.pair(qrPayload: qr, clientName: "DietHealthKit")
            HKHealthStore.configure(manager)
            say("paired with \(server.host):\(server.port) as app \(AppDirectory.appId)")
        }
    }
}
