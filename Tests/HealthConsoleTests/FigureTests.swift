import Testing
@testable import HealthConsole

/// Issue 21, finding 6: 1e19 steps stored by a push stopped the console's Data page (`Int(_:)` of the rounded value).
/// Any stored number is shown, never converted past what an `Int` holds.
@Suite struct FigureTests {
    @Test func anyNumberIsShown() {
        #expect(Figure.format(1e19) == "1e+19")
        #expect(Figure.format(-1e300) == "-1e+300")
        #expect(Figure.format(Double.infinity) == "–" && Figure.format(Double.nan) == "–")
        #expect(Figure.format(12_345.6) == "12,346" && Figure.format(72) == "72" && Figure.format(7.25) == "7.3")
    }
}
