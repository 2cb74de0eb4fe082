import Testing
import HealthSupport

@Suite("Constant-time compare")
struct ConstantTimeTests {
    @Test func equalOnlyForTheSameBytes() {
        #expect(ConstantTime.equals("abc123", "abc123"))
        #expect(!ConstantTime.equals("abc123", "abc124"))
        #expect(!ConstantTime.equals("bbc123", "abc123"))
        #expect(!ConstantTime.equals("abc12", "abc123"))
        #expect(!ConstantTime.equals("abc123", ""))
        #expect(ConstantTime.equals("", ""))
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4]))
    }

    @Test func comparesBytesNotCharacters() {
        // "é" precomposed and decomposed are equal Characters but different bytes: a secret is its bytes.
        #expect("\u{E9}" == "e\u{301}")
        #expect(!ConstantTime.equals("\u{E9}", "e\u{301}"))
        #expect(ConstantTime.equals("abc"[...], "abc"))
    }
}
