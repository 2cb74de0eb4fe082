import ArgumentParser
import Foundation
import HealthKitBridge

/// `diet-healthkit water ML`: writes water drunk to HealthKit (the seed's writeWater).
struct Water: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log water drunk, in mL.")
    @OptionGroup var app: AppDirectory
    @Argument(help: "Milliliters.") var milliliters: Double

    func validate() throws {
        guard milliliters.isFinite, milliliters > 0, milliliters <= 20_000 else { throw ValidationError("water must be in mL, above 0 and at most 20000") }
    }

    func run() async throws {
        try await runReporting {
            _ = try app.configure()
            try await HealthKitManager().writeWater(milliliters, date: wholeSecondNow())
            say("water \(whole(milliliters)) mL written to HealthKit")
        }
    }
}
