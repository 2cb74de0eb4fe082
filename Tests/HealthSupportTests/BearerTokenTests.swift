import Testing
import HealthSupport

@Suite("Bearer token reading")
struct BearerTokenTests {
    @Test func schemeInAnyCase() {
        #expect(BearerToken.parse("Bearer abc") == "abc")
        #expect(BearerToken.parse("bearer abc") == "abc")
        #expect(BearerToken.parse("BEARER abc") == "abc")
        #expect(BearerToken.parse("bEaReR abc") == "abc")
    }

    @Test func extraSpacesAroundTheToken() {
        #expect(BearerToken.parse("Bearer    abc") == "abc")
        #expect(BearerToken.parse("Bearer abc   ") == "abc")
        #expect(BearerToken.parse("Bearer \tabc\t") == "abc")
    }

    @Test func missingOrMalformed() {
        #expect(BearerToken.parse(nil) == nil)
        #expect(BearerToken.parse("") == nil)
        #expect(BearerToken.parse("Bearer") == nil)
        #expect(BearerToken.parse("Bearer ") == nil)
        #expect(BearerToken.parse("Bearer     ") == nil)
        #expect(BearerToken.parse("Bearerabc") == nil)
        #expect(BearerToken.parse("Basic dXNlcjpwYXNz") == nil)
        #expect(BearerToken.parse("Token abc") == nil)
        #expect(BearerToken.parse("Bearer a b") == nil, "a token holds no blanks")
        #expect(BearerToken.parse("Bearer caf\u{E9}") == nil, "visible ASCII only")
        #expect(BearerToken.parse("Bearer abc\u{0}") == nil)
    }

    @Test func lengthLimit() {
        let long = String(repeating: "a", count: 129)
        #expect(BearerToken.parse("Bearer " + long) == long)
        #expect(BearerToken.parse("Bearer " + long, maxLength: 128) == nil)
        #expect(BearerToken.parse("Bearer " + long.dropLast(), maxLength: 128) == String(long.dropLast()))
    }
}
