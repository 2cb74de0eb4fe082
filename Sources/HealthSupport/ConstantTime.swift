/// Comparison of secrets (tokens, CSRF values, fingerprints) in time that depends only on their lengths, never on
/// where they first differ, so a client timing refusals cannot guess a secret byte by byte.
///
/// ```swift
/// ConstantTime.equals(presentedToken, expectedToken)   // true only for the same bytes
/// ```
public enum ConstantTime {
    /// True when `given` and `expected` are the same UTF-8 bytes.
    public static func equals(_ given: some StringProtocol, _ expected: some StringProtocol) -> Bool {
        equals(Array(given.utf8), Array(expected.utf8))
    }

    /// True when the two byte sequences are equal. Lengths are not secret: unequal lengths answer at once.
    public static func equals(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        guard given.count == expected.count else { return false }
        var difference: UInt8 = 0
        for index in given.indices { difference |= given[index] ^ expected[index] }
        return difference == 0
    }
}
