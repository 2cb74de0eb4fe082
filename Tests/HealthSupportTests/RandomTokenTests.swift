import Foundation
import HealthSupport
import Testing

/// Secrets: 32 random bytes as 43 base64url characters, never the same twice.
@Suite struct RandomTokenTests {
    @Test func tokensAreBase64URLOf32BytesAndDistinct() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let tokens = (0..<200).map { _ in RandomToken.make() }
        #expect(Set(tokens).count == 200)
        for token in tokens {
            #expect(token.count == 43)
            #expect(token.allSatisfy(allowed.contains))
        }
        #expect(RandomToken.make(byteCount: 3).count == 4)
        #expect(RandomToken.make(byteCount: 1).count == 2, "no padding")
    }
}
